"""The commands beside `build`: new, add, deploy (and its export of the publishable files).

Each is thin: it checks what only it needs, then calls the build (`pipeline`) or works on its
result. `cli` parses the command line and calls them."""
