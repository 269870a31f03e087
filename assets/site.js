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
  // Listing rows: an abstract is stored once, on its paper's page (the row's title links
  // there). Each row gets a toggle here; opening it fetches the abstract from that page (if
  // that fails, the toggle says so and links to the page).
  document.querySelectorAll("ol.rows > li:not(.no-abstract)").forEach(function (row) {
    var title = row.querySelector(":scope > :first-child > a");
    if (!title || !window.fetch) return;
    var toggle = document.createElement("details");
    toggle.className = "abstract";
    var summary = toggle.appendChild(document.createElement("summary"));
    summary.textContent = "Abstract";
    row.appendChild(toggle);
    toggle.addEventListener("toggle", function () {
      if (!toggle.open || toggle.childElementCount > 1 || toggle.hasAttribute("aria-busy")) return;
      toggle.setAttribute("aria-busy", "true");
      fetch(title.href).then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      }).then(function (html) {
        var page = new DOMParser().parseFromString(html, "text/html");
        var abstract = page.querySelector(".paper-page .abstract-text");
        if (!abstract) throw new Error("no abstract");
        var shown = document.createElement("div");
        shown.className = "abstract-text";
        shown.append.apply(shown, Array.from(abstract.childNodes, function (node) {
          return document.importNode(node, true);
        }));
        toggle.appendChild(shown);
      }).catch(function () {
        var link = document.createElement("a");
        link.href = title.href + "#abstract";
        link.textContent = "On the paper's page";
        toggle.appendChild(link);
      }).finally(function () {
        toggle.removeAttribute("aria-busy");
      });
    });
  });
  // An author's BibTeX: the link is to the part of the authors' BibTeX holding theirs (what a
  // reader without JavaScript gets); here it saves only the author's own entries, cut from
  // the part (after their line "@comment{scholarsite author SLUG}", up to the next author's).
  document.querySelectorAll("a[data-bibtex]").forEach(function (link) {
    if (!window.fetch || !window.Blob || !window.URL || !URL.createObjectURL) return;
    link.addEventListener("click", function (event) {
      var slug = link.getAttribute("data-bibtex");
      event.preventDefault();
      fetch(link.href).then(function (response) {
        if (!response.ok) throw new Error(response.status);
        return response.text();
      }).then(function (text) {
        var mark = "@comment{scholarsite author ";
        var start = text.indexOf(mark + slug + "}\n");
        if (start < 0) throw new Error("not in this part");
        start += mark.length + slug.length + 2;
        var end = text.indexOf("\n" + mark, start);
        var entries = text.slice(start, end < 0 ? text.length - 1 : end);
        var saved = document.createElement("a");
        saved.href = URL.createObjectURL(new Blob([entries], { type: "application/x-bibtex;charset=utf-8" }));
        saved.download = slug + ".bib";
        document.body.appendChild(saved);
        saved.click();
        saved.remove();
        setTimeout(function () { URL.revokeObjectURL(saved.href); }, 1000);
      }).catch(function () { location.href = link.href; });
    });
  });
  // A paper page's BibTeX block: its copy button is made here (of no use without JavaScript).
  var bibtex = document.getElementById("bibtex");
  if (bibtex && !document.querySelector('button.copy[data-copy="bibtex"]')) {
    var copy = document.createElement("button");
    copy.type = "button";
    copy.className = "copy";
    copy.setAttribute("data-copy", "bibtex");
    copy.hidden = true;
    copy.textContent = "Copy BibTeX";
    bibtex.after(copy);
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
