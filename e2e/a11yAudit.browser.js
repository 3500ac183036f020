/* global document, getComputedStyle */
/**
 * An accessibility audit run inside the page by e2e/specs/accessibility.spec.ts (its source is
 * evaluated there; it imports nothing). It checks the WCAG 2.1 AA rules issue 15 found broken, the
 * way axe-core's rules of the same names do:
 *
 * - `color-contrast`: every visible text node against the background it is painted on (the
 *   ancestors' background colours composited, opacity applied): 4.5:1, or 3:1 for large text.
 * - `label-content-name-mismatch`: a control named by `aria-label` whose role takes its name from
 *   content must contain its visible text in that name (WCAG 2.5.3, Label in Name).
 * - `aria-allowed-role`: `header`, `footer` and `main` carry only roles ARIA in HTML allows them.
 *
 * Returns `{ violations: [{ rule, element, detail }] }`; an empty list is a pass.
 */
// eslint-disable-next-line @typescript-eslint/no-unused-vars -- evaluated by its source in the page
function a11yAudit() {
  const violations = [];

  const describe = (el) => {
    const id = el.id ? `#${el.id}` : '';
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    const label = el.getAttribute('aria-label');
    return `${el.tagName.toLowerCase()}${id}${cls}${label ? `[aria-label="${label.slice(0, 80)}"]` : ''}`;
  };

  // ── colours ─────────────────────────────────────────────────────────────────────────────
  const parse = (css) => {
    const m = /rgba?\(([^)]+)\)/.exec(css);
    if (!m) return null;
    const parts = m[1].split(/[\s,/]+/).filter(Boolean).map(Number);
    return { r: parts[0], g: parts[1], b: parts[2], a: parts.length > 3 ? parts[3] : 1 };
  };
  const over = (top, bottom) => {
    const a = top.a + bottom.a * (1 - top.a);
    if (a === 0) return { r: 0, g: 0, b: 0, a: 0 };
    const mix = (c1, c2) => (c1 * top.a + c2 * bottom.a * (1 - top.a)) / a;
    return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a };
  };
  const luminance = ({ r, g, b }) => {
    const lin = (c) => {
      const s = c / 255;
      return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
    };
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
  };
  const ratio = (a, b) => {
    const [l1, l2] = [luminance(a), luminance(b)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const hex = ({ r, g, b }) => `#${[r, g, b].map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

  /** The colour behind `el`: its and its ancestors' backgrounds composited onto white; null under an image. */
  const backgroundOf = (el) => {
    const layers = [];
    for (let at = el; at; at = at.parentElement) {
      const style = getComputedStyle(at);
      if (style.backgroundImage !== 'none') return null;
      const bg = parse(style.backgroundColor);
      if (bg && bg.a > 0) {
        layers.push(bg);
        if (bg.a >= 1) break;
      }
    }
    let color = { r: 255, g: 255, b: 255, a: 1 };
    for (let k = layers.length - 1; k >= 0; k--) color = over(layers[k], color);
    return color;
  };
  const opacityOf = (el) => {
    let o = 1;
    for (let at = el; at; at = at.parentElement) o *= Number(getComputedStyle(at).opacity);
    return o;
  };

  const visible = (el) => {
    const style = getComputedStyle(el);
    if (style.visibility !== 'visible' || style.display === 'none') return false;
    const rect = el.getBoundingClientRect();
    return rect.width > 1 && rect.height > 1;
  };

  for (const el of document.body.querySelectorAll('*')) {
    const text = [...el.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
    if (text === '' || !visible(el)) continue;
    // Disabled controls and the options of a native select are exempt (WCAG 1.4.3).
    if (el.closest('button:disabled, input:disabled, select:disabled, [aria-disabled="true"], option')) continue;
    const style = getComputedStyle(el);
    const bg = backgroundOf(el);
    const fg = parse(style.color);
    if (!bg || !fg) continue;
    const painted = over({ ...fg, a: fg.a * opacityOf(el) }, bg);
    const size = parseFloat(style.fontSize);
    const large = size >= 24 || (size >= 18.66 && Number(style.fontWeight) >= 700);
    const needed = large ? 3 : 4.5;
    const r = ratio(painted, bg);
    if (r < needed - 0.005) {
      violations.push({ rule: 'color-contrast', element: describe(el), detail: `${r.toFixed(2)}:1 (${hex(painted)} on ${hex(bg)}), needs ${needed}:1, text ${JSON.stringify(text.slice(0, 40))}` });
    }
  }

  // ── label in name ───────────────────────────────────────────────────────────────────────
  const normalize = (s) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, ' ').trim();
  /** Visible text, without what is hidden from assistive technology. */
  const visibleText = (el) => {
    let out = '';
    for (const node of el.childNodes) {
      if (node.nodeType === 3) out += node.textContent;
      else if (node.nodeType === 1 && node.getAttribute('aria-hidden') !== 'true' && getComputedStyle(node).display !== 'none') out += ` ${visibleText(node)} `;
    }
    return out;
  };
  const NAME_FROM_CONTENT = 'button, a[href], summary, [role="button"], [role="link"], [role="tab"], [role="menuitem"], [role="option"], [role="checkbox"], [role="radio"], [role="switch"], [role="treeitem"], [role="cell"], [role="columnheader"], [role="rowheader"], [role="heading"], h1, h2, h3, h4, h5, h6';
  for (const el of document.body.querySelectorAll('[aria-label]')) {
    if (!el.matches(NAME_FROM_CONTENT) || !visible(el)) continue;
    const shown = normalize(visibleText(el));
    if (shown === '') continue;
    const name = normalize(el.getAttribute('aria-label') ?? '');
    if (!` ${name} `.includes(` ${shown} `)) {
      violations.push({ rule: 'label-content-name-mismatch', element: describe(el), detail: `visible text ${JSON.stringify(shown)} is not in the name ${JSON.stringify(name)}` });
    }
  }

  // ── roles the element may carry ─────────────────────────────────────────────────────────
  // Each tag's implicit role, restated, is allowed too.
  const ALLOWED = { header: ['banner', 'group', 'none', 'presentation'], footer: ['contentinfo', 'group', 'none', 'presentation'], main: ['main'] };
  for (const [tag, roles] of Object.entries(ALLOWED)) {
    for (const el of document.body.querySelectorAll(`${tag}[role]`)) {
      const role = el.getAttribute('role');
      if (!roles.includes(role)) violations.push({ rule: 'aria-allowed-role', element: describe(el), detail: `role="${role}" is not allowed on <${tag}>` });
    }
  }

  return { violations };
}
