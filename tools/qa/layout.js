// Layout probe run in the page by scholarsite.qa: horizontal overflow and overlapping text.
// Returns {scrollWidth, clientWidth, wide: [selector...], overlaps: [[a, b], ...]}.
// Text inside one MathML formula may overlap itself: an accent or limit (mover/munder:
// \hat{x}, \bar{x}, \vec{v}, \overline{AB}) is drawn on top of its base, so such pairs are not
// reported; a formula overlapping text outside it still is.
() => {
  const MIN_SIDE = 4;        // ignore slivers (visually-hidden text, hairlines)
  const MIN_SHARE = 0.3;     // overlap must cover this share of the smaller text box
  const MAX_REPORTS = 5;
  const doc = document.documentElement;

  const describe = (el) => {
    let name = el.tagName.toLowerCase();
    if (el.id) name += "#" + el.id;
    else if (el.classList.length) name += "." + [...el.classList].join(".");
    const text = el.textContent.trim().replace(/\s+/g, " ").slice(0, 40);
    return text ? `${name} "${text}"` : name;
  };

  const intersect = (a, b) => {
    if (!a || !b) return a || b;
    const r = {left: Math.max(a.left, b.left), top: Math.max(a.top, b.top),
               right: Math.min(a.right, b.right), bottom: Math.min(a.bottom, b.bottom)};
    return r.right > r.left && r.bottom > r.top ? r : {left: 0, top: 0, right: 0, bottom: 0};
  };

  // The region in which an element's content can be seen (null: unbounded).
  const clips = new Map();
  const clipOf = (el) => {
    if (!el) return null;
    if (clips.has(el)) return clips.get(el);
    const style = getComputedStyle(el);
    let own = null;
    if (style.clipPath !== "none" || (style.clip && style.clip !== "auto")) {
      own = {left: 0, top: 0, right: 0, bottom: 0};
    } else if (style.overflowX !== "visible" || style.overflowY !== "visible") {
      own = el.getBoundingClientRect();
    }
    const clip = intersect(own, clipOf(el.parentElement));
    clips.set(el, clip);
    return clip;
  };

  // Visible line boxes of every non-blank text node, tagged with the element holding it.
  const boxes = [];
  const range = document.createRange();
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const el = node.parentElement;
    if (!node.nodeValue.trim() || !el) continue;
    if (!el.checkVisibility({opacityProperty: true, visibilityProperty: true})) continue;
    range.selectNodeContents(node);
    for (const rect of range.getClientRects()) {
      const r = intersect(rect, clipOf(el));
      if (r.right - r.left >= MIN_SIDE && r.bottom - r.top >= MIN_SIDE) {
        boxes.push({el, r, formula: el.closest("math")});
      }
    }
  }
  boxes.sort((a, b) => a.r.top - b.r.top);

  const area = (r) => (r.right - r.left) * (r.bottom - r.top);
  const overlaps = [];
  const seen = new Set();
  for (let i = 0; i < boxes.length && overlaps.length < MAX_REPORTS; i++) {
    const a = boxes[i];
    for (let j = i + 1; j < boxes.length && boxes[j].r.top < a.r.bottom; j++) {
      const b = boxes[j];
      if (a.el === b.el || a.el.contains(b.el) || b.el.contains(a.el)) continue;
      if (a.formula && a.formula === b.formula) continue;
      const shared = intersect(a.r, b.r);
      if (area(shared) < MIN_SHARE * Math.min(area(a.r), area(b.r))) continue;
      const key = describe(a.el) + "|" + describe(b.el);
      if (seen.has(key)) continue;
      seen.add(key);
      overlaps.push([describe(a.el), describe(b.el)]);
      if (overlaps.length >= MAX_REPORTS) break;
    }
  }

  // Innermost elements that stick out to the right of the viewport.
  const overflowing = doc.scrollWidth > doc.clientWidth;
  const wide = !overflowing ? [] : [...document.body.querySelectorAll("*")]
    .filter((el) => el.getBoundingClientRect().right > doc.clientWidth + 1)
    .filter((el, _, all) => !all.some((other) => other !== el && el.contains(other)))
    .slice(0, 3).map(describe);

  return {scrollWidth: doc.scrollWidth, clientWidth: doc.clientWidth, wide, overlaps};
}
