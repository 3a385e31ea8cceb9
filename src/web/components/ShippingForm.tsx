import { useId } from 'react';
import { US_STATES } from '../data/us-states';
import {
  FIELD_LABELS,
  fieldsOf,
  isRequired,
  requiredText,
  type FormKind,
  type ShippingField,
  type ShippingValues,
} from '../lib/shipping';

const AUTOCOMPLETE: Record<ShippingField, string> = {
  fullName: 'name',
  email: 'email',
  address1: 'address-line1',
  address2: 'address-line2',
  city: 'address-level2',
  stateProvince: 'address-level1',
  postalCode: 'postal-code',
  country: 'country-name',
  usState: 'address-level1',
  zip: 'postal-code',
};

/** The 8-field international form (wallet pages) or the 7-field US form (QR pages). Controlled. */
export function ShippingForm({
  kind,
  values,
  onChange,
  invalid = [],
  messages = {},
  sent = false,
}: {
  kind: FormKind;
  values: ShippingValues;
  onChange: (field: ShippingField, value: string) => void;
  /** Required fields found empty by the last check: marked aria-invalid, with a message next to each. */
  invalid?: readonly ShippingField[];
  /** A field's own message instead of "… is required." (a malformed e-mail address). */
  messages?: Partial<Record<ShippingField, string>>;
  /** Sent with a paid order (the wallet page's receipt): read-only until "Buy another" starts a new one. */
  sent?: boolean;
}) {
  const id = useId();
  return (
    <fieldset className="shipping-form" data-form={kind} disabled={sent}>
      <legend>Shipping details{kind === 'us' ? ' (US addresses only)' : ''}</legend>
      <p className="muted small">Fields marked * are required.</p>
      {fieldsOf(kind).map((field) => {
        const inputId = `${id}-${field}`;
        const label = `${FIELD_LABELS[field]}${isRequired(field) ? ' *' : ''}`;
        const bad = invalid.includes(field);
        const errorId = `${inputId}-error`;
        const a11y = {
          'aria-invalid': bad || undefined,
          'aria-describedby': bad ? errorId : undefined,
        };
        return (
          <div className="field" key={field}>
            <label htmlFor={inputId}>{label}</label>
            {field === 'usState' ? (
              <select
                id={inputId}
                name={field}
                value={values[field] ?? ''}
                aria-required="true"
                {...a11y}
                autoComplete={AUTOCOMPLETE[field]}
                onChange={(e) => onChange(field, e.target.value)}
              >
                <option value="">Select a state</option>
                {US_STATES.map((s) => (
                  <option key={s.code} value={s.code}>
                    {s.name}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={inputId}
                name={field}
                type={field === 'email' ? 'email' : 'text'}
                value={values[field] ?? ''}
                aria-required={isRequired(field) || undefined}
                {...a11y}
                autoComplete={AUTOCOMPLETE[field]}
                inputMode={field === 'zip' ? 'numeric' : undefined}
                onChange={(e) => onChange(field, e.target.value)}
              />
            )}
            {bad && (
              <p className="field-error" id={errorId} role={messages[field] ? 'alert' : undefined}>
                {messages[field] ?? requiredText(field)}
              </p>
            )}
          </div>
        );
      })}
    </fieldset>
  );
}
