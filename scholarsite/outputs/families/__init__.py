"""The output families: each a function from the site's data to the outputs it makes (listed, in
order, in `outputs.site`); what they share is in `outputs/` beside this package."""
