// Search page: Pagefind's JavaScript API with our own accessible result list and filters.
// The index comes in shards (data-shards: their folders from the site's root); Pagefind is
// imported from the first and merges the others, so results and filter counts are those of
// one index. Without JavaScript the page shows plain links to the indexes instead. Authors
// have no records: the names of the author facet that a query's words begin (accents and
// case aside) are listed above the results, each linked to its page, whose address comes
// from the `people` of one of the author's papers.
(function () {
  "use strict";
  var box = document.getElementById("search");
  if (!box) return;
  var root = box.getAttribute("data-root") || "./";
  var shards = (box.getAttribute("data-shards") || "pagefind/0/").split(" ").filter(Boolean);
  // baseUrl "/": result URLs come from the site's root, as the records give them, whatever
  // folder a shard is in; the links below put the page's own way to the root before them.
  var OPTIONS = { excerptLength: 28, baseUrl: "/" };
  var FILTERS = [["kind", "Type"], ["subject", "Subject"], ["year", "Year"], ["author", "Author"]];

  function element(tag, attributes, text) {
    var node = document.createElement(tag);
    Object.keys(attributes || {}).forEach(function (name) { node.setAttribute(name, attributes[name]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // Pagefind excerpts mark matches with <mark>; everything else is rebuilt as text nodes.
  function excerpt(html) {
    var paragraph = element("p", { "class": "search-excerpt" });
    var decoder = document.createElement("textarea");
    var target = paragraph;
    html.split(/(<\/?mark>)/).forEach(function (part) {
      if (part === "<mark>") { target = paragraph.appendChild(element("mark")); return; }
      if (part === "</mark>") { target = paragraph; return; }
      decoder.innerHTML = part;
      target.appendChild(document.createTextNode(decoder.value));
    });
    return paragraph;
  }

  function resultItem(data) {
    var item = element("li", { "class": "search-result" });
    var heading = item.appendChild(element("h2", { "class": "paper-title" }));
    heading.appendChild(element("a", { href: root + data.url.replace(/^\//, "") }, data.meta.title || data.url));
    var facts = [data.meta.kind, data.meta.year, data.meta.authors].filter(Boolean).join(" · ");
    if (facts) item.appendChild(element("p", { "class": "paper-meta" }, facts));
    item.appendChild(excerpt(data.excerpt || ""));
    return item;
  }

  // Lowercase, without accents: what a query's words and authors' names are compared as.
  function fold(text) {
    return text.normalize("NFD").replace(/[\u0300-\u036f]/g, "").toLowerCase();
  }

  function shardURL(folder) {
    return new URL(root + folder, document.baseURI).href;
  }

  // Pagefind from the first shard, with every other shard merged into it.
  async function load() {
    var pagefind = await import(shardURL(shards[0]) + "pagefind.js");
    await pagefind.options(OPTIONS);
    await Promise.all(shards.slice(1).map(function (folder) {
      return pagefind.mergeIndex(shardURL(folder), Object.assign({}, OPTIONS));
    }));
    return pagefind;
  }

  async function start() {
    var pagefind;
    try {
      pagefind = await load();
    } catch (failure) {
      box.appendChild(element("p", {}, "The search index could not be loaded. Browse the indexes below."));
      return;
    }
    var form = box.appendChild(element("form", { "class": "search-form", role: "search" }));
    form.addEventListener("submit", function (event) { event.preventDefault(); run(); });
    var label = form.appendChild(element("label", { "for": "search-query" }, "Search titles, abstracts, authors and subjects"));
    var input = form.appendChild(element("input", { id: "search-query", type: "search", name: "q", autocomplete: "off" }));
    var available = await pagefind.filters();
    var selects = {};
    var filterRow = form.appendChild(element("div", { "class": "search-filters" }));
    FILTERS.forEach(function (pair) {
      var values = Object.keys(available[pair[0]] || {}).sort();
      if (!values.length) return;
      var id = "filter-" + pair[0];
      var wrap = filterRow.appendChild(element("div"));
      wrap.appendChild(element("label", { "for": id }, pair[1]));
      var select = wrap.appendChild(element("select", { id: id, name: pair[0] }));
      select.appendChild(element("option", { value: "" }, "Any"));
      values.forEach(function (value) {
        select.appendChild(element("option", { value: value }, value + " (" + available[pair[0]][value] + ")"));
      });
      select.addEventListener("change", run);
      selects[pair[0]] = select;
    });
    var status = box.appendChild(element("p", { "class": "search-status", role: "status", "aria-live": "polite" }));
    var people = box.appendChild(element("div", { "class": "search-authors" }));
    var list = box.appendChild(element("ol", { "class": "search-results paper-list" }));
    var authors = Object.keys(available.author || {});
    var folded = authors.map(fold);
    var pages = {};  // author name: the URL of their page, once found

    async function pageOf(name) {
      if (!(name in pages)) {
        var search = await pagefind.search(null, { filters: { author: name } });
        var data = search.results.length ? await search.results[0].data() : null;
        var found = data ? JSON.parse(data.meta.people || "[]").find(function (p) { return p[0] === name; }) : null;
        pages[name] = found ? found[1] : null;
      }
      return pages[name];
    }

    var asked = 0;  // the latest query's number: an older answer is not shown
    async function showAuthors(query) {
      var number = ++asked;
      var words = fold(query).split(/\s+/).filter(Boolean);
      var named = [];
      if (words.length) {
        folded.forEach(function (name, index) {
          var parts = name.split(/[\s.,'’-]+/);
          if (words.every(function (w) { return parts.some(function (p) { return p.indexOf(w) === 0; }); })) named.push(authors[index]);
        });
      }
      named.sort(function (a, b) { return available.author[b] - available.author[a] || (a < b ? -1 : 1); });
      named = named.slice(0, 8);
      var urls = await Promise.all(named.map(pageOf));
      var items = named.map(function (name, i) {
        if (!urls[i]) return null;
        var item = element("li");
        item.appendChild(element("a", { href: root + urls[i].replace(/^\//, "") }, name));
        var count = available.author[name];
        item.append(" (" + count + (count === 1 ? " paper)" : " papers)"));
        return item;
      }).filter(Boolean);
      if (number !== asked) return;
      people.replaceChildren();
      if (!items.length) return;
      people.appendChild(element("h2", {}, "Authors"));
      var ul = people.appendChild(element("ul", { "class": "index-links" }));
      ul.replaceChildren.apply(ul, items);
    }

    async function run() {
      var query = input.value.trim();
      var filters = {};
      Object.keys(selects).forEach(function (name) { if (selects[name].value) filters[name] = selects[name].value; });
      showAuthors(query);
      if (!query && !Object.keys(filters).length) { list.replaceChildren(); status.textContent = ""; return; }
      var search = await pagefind.debouncedSearch(query || null, { filters: filters }, 150);
      if (search === null) return;  // superseded by a newer keystroke
      var shown = await Promise.all(search.results.slice(0, 30).map(function (r) { return r.data(); }));
      list.replaceChildren.apply(list, shown.map(resultItem));
      var count = search.results.length;
      status.textContent = count === 0 ? "No results." : count + (count === 1 ? " result" : " results") + (count > 30 ? ", showing the first 30." : ".");
    }

    input.addEventListener("input", run);
    input.value = new URLSearchParams(window.location.search).get("q") || "";
    label.hidden = false;
    if (input.value) run();
    input.focus();
  }
  start();
})();
