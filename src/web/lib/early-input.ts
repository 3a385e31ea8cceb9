/**
 * What the buyer types into the prerendered page's shipping form before the app handles it. On a slow network the
 * form is on screen seconds before the script runs, and hydration renders the app's (empty) values over it; a lazy
 * part of the page (the QR checkout holds the form) may hydrate after the page's own effects ran. main.tsx calls
 * `watchEarlyInput` the moment before it hydrates: it takes what differs from the HTML then, and follows every
 * later input of the form; the product page subscribes once it runs (ProductPage.tsx). Once React handles the
 * form it reports the same values through onChange, so following on is harmless.
 */
type Field = HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement;
type Listener = (values: Record<string, string>) => void;

let early: Record<string, string> = {};
let listener: Listener | undefined;

const isField = (el: unknown): el is Field =>
  el instanceof HTMLInputElement || el instanceof HTMLSelectElement || el instanceof HTMLTextAreaElement;

/** The shipping form's fields (`form.order-form`) whose value differs from the HTML's, then every change. */
export function watchEarlyInput(root: HTMLElement): void {
  for (const el of Array.from(root.querySelectorAll('form.order-form [name]'))) {
    if (!isField(el)) continue;
    const initial =
      el instanceof HTMLSelectElement
        ? ((Array.from(el.options).find((o) => o.defaultSelected) ?? el.options[0])?.value ?? '')
        : el.defaultValue;
    if (el.value !== initial && el.value.trim() !== '') early[el.name] = el.value;
  }
  const follow = (e: Event) => {
    const el = e.target;
    if (!isField(el) || el.name === '' || el.closest('form.order-form') === null) return;
    if (listener) listener({ [el.name]: el.value });
    else early[el.name] = el.value;
  };
  root.addEventListener('input', follow, true);
  root.addEventListener('change', follow, true);
}

/**
 * Subscribes the page: `on` gets what was typed so far (if anything), then each later change of the form. Returns
 * the unsubscribe.
 */
export function onEarlyInput(on: Listener): () => void {
  const taken = early;
  early = {};
  if (Object.values(taken).some((v) => v.trim() !== '')) on(taken);
  listener = on;
  return () => {
    if (listener === on) listener = undefined;
  };
}
