// A paper page's citation downloads, made here from the page (progressive enhancement: the
// BibTeX is on the page for readers without JavaScript). The texts are byte for byte what
// scholarsite's citation exports write (outputs/downloads.py is this script's rule in Python):
// BibTeX is the page's <pre id="bibtex">; CSL-JSON is #citation-data's item with the abstract
// put back (its title and URL read from the page's head when the data leaves them empty),
// written as Python's json.dumps writes it; RIS is made from the item, unless the data
// carries its pieces (joined by the abstract's AB line). The abstract is the text of the
// abstract the page shows, unless the data carries it (math reads otherwise on the page).
(function () {
  "use strict";
  var data = document.getElementById("citation-data");
  var heading = document.getElementById("cite");
  if (!data || !heading || !window.Blob || !window.URL || !URL.createObjectURL) return;
  var citation = JSON.parse(data.textContent);
  // The item's title and URL, when empty, are the page's citation_title and canonical URL.
  var item = {};
  citation.csl.forEach(function (pair) { item[pair[0]] = pair[1]; });
  if (item.title === "") item.title = attribute('meta[name="citation_title"]', "content");
  if (item.URL === "") item.URL = attribute('link[rel="canonical"]', "href");
  var types = {
    bib: "application/x-bibtex",
    ris: "application/x-research-info-systems",
    json: "application/vnd.citationstyles.csl+json"
  };
  var RIS_TYPES = {
    "article-journal": "JOUR", "paper-conference": "CPAPER", "article": "GEN", "thesis": "THES",
    "book": "BOOK", "chapter": "CHAP", "report": "RPRT", "dataset": "DATA"
  };

  function attribute(selector, name) {
    var element = document.querySelector(selector);
    return element ? element.getAttribute(name) : "";
  }

  function collapse(text) {
    return text.replace(/[\t\n\f\r ]+/g, " ").replace(/^ +| +$/g, "");
  }

  function abstract() {
    if ("abstract" in citation) return citation.abstract;
    var shown = document.querySelector(".paper-page .abstract-text");
    if (!shown) return "";
    var nodes = Array.prototype.filter.call(shown.childNodes, function (node) {
      return node.nodeType === 1 || node.nodeType === 3;
    });
    return collapse(nodes.map(function (node) { return node.textContent; }).join(" "));
  }

  // JSON as Python's json.dumps(..., ensure_ascii=False) writes it: ", " and ": " apart.
  function python(value) {
    if (Array.isArray(value)) return "[" + value.map(python).join(", ") + "]";
    if (value !== null && typeof value === "object") {
      return "{" + Object.keys(value).map(function (name) {
        return JSON.stringify(name) + ": " + python(value[name]);
      }).join(", ") + "}";
    }
    return JSON.stringify(value);
  }

  function csl(text) {
    if (citation.csl_text) return citation.csl_text.join(JSON.stringify(text));
    var whole = {};
    Object.keys(item).forEach(function (name) {
      if (name === "URL" && text) whole.abstract = text;
      whole[name] = item[name];
    });
    if (text && !("abstract" in whole)) whole.abstract = text;
    return python([whole]) + "\n";
  }

  function ris(text) {
    if (citation.ris) return citation.ris.join("AB  - " + text + "\n");
    var thesis = item.type === "thesis", parts = item.issued["date-parts"][0];
    var lines = [["TY", RIS_TYPES[item.type] || "GEN"], ["ID", item.id], ["TI", item.title]];
    item.author.forEach(function (a) {
      var family = [a["non-dropping-particle"], a.family].filter(Boolean).join(" ");
      lines.push(["AU", [family, a.given, a.suffix].filter(Boolean).join(", ")]);
    });
    lines.push(["PY", String(parts[0])]);
    if (item.publisher && !thesis) lines.push(["DB", item.publisher]);
    var venue = thesis ? item.publisher : item["container-title"];
    if (venue) lines.push([thesis ? "PB" : "T2", venue]);
    if (parts.length > 1) {
      lines.push(["DA", parts.map(function (p) { return String(p).padStart(2, "0"); }).join("/") + "/".repeat(4 - parts.length)]);
    }
    if (item.keyword) item.keyword.split(", ").forEach(function (k) { lines.push(["KW", k]); });
    if (text) lines.push(["AB", text]);
    [["DO", "DOI"], ["UR", "URL"], ["N1", "note"]].forEach(function (pair) {
      if (item[pair[1]]) lines.push([pair[0], item[pair[1]]]);
    });
    return lines.map(function (line) { return line[0] + "  - " + line[1] + "\n"; }).join("") + "ER  - \n";
  }

  var makers = {
    bib: function () { return document.getElementById("bibtex").textContent; },
    ris: function () { return ris(abstract()); },
    json: function () { return csl(abstract()); }
  };
  // The buttons exist only here: without JavaScript the page offers its BibTeX block.
  var buttons = document.createElement("p");
  buttons.className = "downloads";
  buttons.append("Download as ");
  [["bib", "BibTeX"], ["ris", "RIS"], ["json", "CSL-JSON"]].forEach(function (pair, index) {
    if (index) buttons.append(index === 2 ? " or " : ", ");
    var button = document.createElement("button");
    button.type = "button";
    button.className = "link";
    button.setAttribute("data-cite", pair[0]);
    button.textContent = pair[1];
    buttons.appendChild(button);
    button.addEventListener("click", function () {
      var format = pair[0];
      var blob = new Blob([makers[format]()], { type: types[format] + ";charset=utf-8" });
      var link = document.createElement("a");
      link.href = URL.createObjectURL(blob);
      link.download = item.id + "." + format;
      document.body.appendChild(link);
      link.click();
      link.remove();
      setTimeout(function () { URL.revokeObjectURL(link.href); }, 1000);
    });
  });
  heading.after(buttons);
})();
