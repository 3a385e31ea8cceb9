/**
 * What the buyer typed into the prerendered page's shipping form before the app came alive. On a slow network the
 * form is on screen seconds before the script runs, and hydration renders the app's (empty) values over it. main.tsx
 * calls `watchEarlyInput` the moment before it hydrates: it takes what differs from the HTML then, and follows the
 * input made while React hydrates; the product page adopts the result once, after hydration (ProductPage.tsx).
 */
let early: Record<string, string> = {};
let stop: (() => void) | undefined;

type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
const isField = (el: unknown): el is Field =>
  el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;
const inForm = (el: Field) => el.name !== '' && el.closest('form.order-form') !== null;

/** The shipping form's fields (`form.order-form`) whose value differs from the HTML's, then every change. */
export function watchEarlyInput(root: HTMLElement): void {
  early = {};
  for (const el of Array.from(root.querySelectorAll('form.order-form [name]'))) {
    if (!isField(el)) continue;
    const initial =
      el instanceof HTMLSelectElement
        ? ((Array.from(el.options).find((o) => o.defaultSelected) ?? el.options[0])?.value ?? '')
        : el.defaultValue;
    if (el.value !== initial && el.value.trim() !== '') early[el.name] = el.value;
  }
  const follow = (e: Event) => {
    if (isField(e.target) && inForm(e.target)) early[e.target.name] = e.target.value;
  };
  root.addEventListener('input', follow, true);
  root.addEventListener('change', follow, true);
  stop = () => {
    root.removeEventListener('input', follow, true);
    root.removeEventListener('change', follow, true);
  };
}

/** The values typed before the app took over, once (null when nothing was typed); stops following. */
export function takeEarlyInput(): Record<string, string> | null {
  stop?.();
  stop = undefined;
  const taken = early;
  early = {};
  return Object.values(taken).some((v) => v.trim() !== '') ? taken : null;
}
