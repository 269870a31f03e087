// Progressive enhancement only: every page works without this file.
(function () {
  "use strict";
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
