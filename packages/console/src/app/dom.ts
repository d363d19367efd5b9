/** A tiny DOM builder: no framework, no innerHTML (text is always set as text), no inline styles (the CSP forbids them). */
export type Child = Node | string | number | null | undefined | false | Child[];
type Props = Record<string, unknown>;

function append(el: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) for (const c of child) append(el, c);
  else el.appendChild(typeof child === 'object' ? child : document.createTextNode(String(child)));
}

/** h('button', {onclick: f, class: 'danger'}, 'Delete'): `on…` props are listeners, the rest attributes or properties. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(props ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') el.addEventListener(k.slice(2), v as EventListener);
    else if (k === 'class') el.className = String(v);
    else if (k in el && k !== 'list') (el as unknown as Record<string, unknown>)[k] = v;
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  append(el, children);
  return el;
}

export function replace(target: Element, ...children: Child[]): void {
  target.replaceChildren();
  append(target, children);
}

/** A table with a header row; `rows` are already cells. */
export function table(head: string[], rows: Child[][], empty = 'Nothing yet.'): HTMLElement {
  if (!rows.length) return h('p', { class: 'muted' }, empty);
  return h('table', null, h('thead', null, h('tr', null, head.map((t) => h('th', null, t)))), h('tbody', null, rows.map((r) => h('tr', null, r.map((c) => h('td', null, c))))));
}

/** The values of a form's named fields. */
export function fields(form: HTMLFormElement): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of new FormData(form)) if (typeof v === 'string') out[k] = v;
  return out;
}

/** Handles the form's submissions in the page (no navigation): `handle` gets the values of its named fields. */
export function onSubmit(form: HTMLFormElement, handle: (f: Record<string, string>) => void): void {
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    handle(fields(form));
  });
}

export const byId = (id: string) => document.getElementById(id) as HTMLElement;

export const when = (iso: string | null | undefined) => (iso ? new Date(iso).toISOString().replace('T', ' ').slice(0, 19) + ' UTC' : '—');
