// Render the math that pymdownx.arithmatex (generic mode) wraps in <span class="arithmatex">
// and <div class="arithmatex">, with the KaTeX copy vendored beside this file: the site needs
// no network.  Only those elements are rendered, so a literal dollar elsewhere stays text.
//
// The copy is KaTeX 0.19.1 from the npm package katex (MIT licence: katex/LICENSE): its
// dist/katex.min.js, dist/katex.min.css, dist/fonts/ and dist/contrib/auto-render.min.js.
document.addEventListener("DOMContentLoaded", function () {
  var delimiters = [
    {left: "\\(", right: "\\)", display: false},
    {left: "\\[", right: "\\]", display: true}
  ];
  document.querySelectorAll(".arithmatex").forEach(function (element) {
    renderMathInElement(element, {delimiters: delimiters, throwOnError: false});
  });
});
