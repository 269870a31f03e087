// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";
  // Opened from disk (a portable build): the search page says plainly that it needs a server.
  var search = document.getElementById("search");
  if (search && location.protocol === "file:") {
    var note = document.createElement("p");
    note.className = "search-needs-server";
    note.textContent = "Search needs the site to be served over http(s), not opened from disk: run " +
      "`python -m http.server` in the site folder and open http://localhost:8000/. Browse the indexes below meanwhile.";
    search.replaceWith(note);
  }
  // Copy buttons: reveal them only when the Clipboard API exists.
  document.querySelectorAll("button.copy[data-copy]").forEach(function (button) {
    if (!navigator.clipboard) return;
    button.hidden = false;
    var label = button.textContent;
    button.addEventListener("click", function () {
      var source = document.getElementById(button.getAttribute("data-copy"));
      if (!source) return;
      navigator.clipboard.writeText(source.textContent).then(function () {
        button.textContent = "Copied";
        setTimeout(function () { button.textContent = label; }, 2000);
      }, function () {
        button.textContent = "Copy failed: select the text instead";
      });
    });
  });
})();
