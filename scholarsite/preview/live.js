// The preview's live script (never published: the preview adds it to the pages it serves).
// It speaks livereload's protocol with the preview's websocket. When a build changed only
// pages, the page open here is fetched again and its body put in place, scroll kept, its
// scripts run again: the save shows without a reload. Anything else (a stylesheet, a script
// or an image written, another answer than a page, a page whose <head> loads other files or
// redirects) reloads the page.
(function () {
  "use strict";
  var IN_PLACE = "pages"; // the path the preview sends when only pages changed

  function loads(head) {
    // What a <head> makes the browser load or do: its stylesheets, scripts and redirects.
    return Array.prototype.map.call(
      head.querySelectorAll("link[rel~='stylesheet'], script[src], meta[http-equiv='refresh' i]"),
      function (element) {
        return element.outerHTML;
      }
    ).join("\n");
  }

  function rerun(body) {
    // Scripts put in a page by the parser of another document do not run: make them anew, in order.
    body.querySelectorAll("script").forEach(function (old) {
      if (old.type && old.type !== "text/javascript" && old.type !== "module") return; // data: left as parsed
      var fresh = document.createElement("script");
      Array.prototype.forEach.call(old.attributes, function (attribute) {
        fresh.setAttribute(attribute.name, attribute.value);
      });
      fresh.async = false;
      fresh.textContent = old.textContent;
      old.replaceWith(fresh);
    });
  }

  function refresh() {
    fetch(location.href, { cache: "no-store", redirect: "manual" })
      .then(function (response) {
        var type = response.headers.get("Content-Type") || "";
        if (response.status !== 200 || type.indexOf("text/html") !== 0) throw new Error("not a page");
        return response.text();
      })
      .then(function (text) {
        var page = new DOMParser().parseFromString(text, "text/html");
        if (loads(page.head) !== loads(document.head)) throw new Error("other files");
        document.title = page.title;
        var body = document.adoptNode(page.body);
        document.body.replaceWith(body);
        rerun(body);
      })
      .catch(function () {
        location.reload();
      });
  }

  function connect() {
    var socket = new WebSocket((location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/livereload");
    socket.onopen = function () {
      socket.send(JSON.stringify({ command: "hello", protocols: ["http://livereload.com/protocols/official-7"] }));
      socket.send(JSON.stringify({ command: "info", url: location.href, plugins: {} }));
      window.scholarsiteLive = true; // connected: a save is shown from now on
    };
    socket.onmessage = function (event) {
      var message = JSON.parse(event.data);
      if (message.command !== "reload") return;
      if (message.path === IN_PLACE) refresh();
      else location.reload();
    };
    socket.onclose = function () {
      window.scholarsiteLive = false;
      setTimeout(connect, 1000); // the preview restarted: reconnect
    };
  }

  connect();
})();
