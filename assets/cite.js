// A paper page's citation downloads, made here from the page (progressive enhancement: the
// BibTeX is on the page for readers without JavaScript). The texts are byte for byte what
// scholarsite's citation exports write: BibTeX is the page's <pre id="bibtex">; RIS and
// CSL-JSON are the pieces of #citation-data joined by the abstract (outputs/downloads.py).
(function () {
  "use strict";
  var data = document.getElementById("citation-data");
  var buttons = document.querySelector(".downloads");
  if (!data || !buttons || !window.Blob || !window.URL || !URL.createObjectURL) return;
  var citation = JSON.parse(data.textContent);
  var types = {
    bib: "application/x-bibtex",
    ris: "application/x-research-info-systems",
    json: "application/vnd.citationstyles.csl+json"
  };
  var makers = {
    bib: function () { return document.getElementById("bibtex").textContent; },
    ris: function () { return citation.ris.join("AB  - " + citation.abstract + "\n"); },
    json: function () { return citation.csl.join(JSON.stringify(citation.abstract)); }
  };
  buttons.querySelectorAll("button[data-cite]").forEach(function (button) {
    button.addEventListener("click", function () {
      var format = button.getAttribute("data-cite");
      var blob = new Blob([makers[format]()], { type: types[format] + ";charset=utf-8" });
      var link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = citation.key + "." + format;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    });
  });
  buttons.hidden = false;
})();
