/**
 * Order input schemas shared by the web form (its alerts) and the server (its 400s). Browser-safe: zod only.
 * Shipping forms are the spec's (section 3), required fields per section 5; every text is trimmed, capped and
 * free of control characters; unknown fields are rejected.
 */
import { PayerProofSchema } from './hold-proof';
import { FORBIDDEN_TEXT, isEmailAddress } from './email-address';
import { z } from 'zod';
import { DomainError } from './errors';

export const MAX_TEXT = 200;
export const MAX_EMAIL = 254;
export const MIN_QUANTITY = 1;
export const MAX_QUANTITY = 99;

/** Spec section 8: the alert when a required field is missing. */
export const MISSING_SHIPPING_WALLET = 'Please fill out all required shipping details first!';
export const MISSING_SHIPPING_QR = 'Please fill out all required shipping details.';

/** The 50 US states (spec: "50 US states in the selector"), code and name, in alphabetical order of name. */
export const US_STATES = [
  { code: 'AL', name: 'Alabama' },
  { code: 'AK', name: 'Alaska' },
  { code: 'AZ', name: 'Arizona' },
  { code: 'AR', name: 'Arkansas' },
  { code: 'CA', name: 'California' },
  { code: 'CO', name: 'Colorado' },
  { code: 'CT', name: 'Connecticut' },
  { code: 'DE', name: 'Delaware' },
  { code: 'FL', name: 'Florida' },
  { code: 'GA', name: 'Georgia' },
  { code: 'HI', name: 'Hawaii' },
  { code: 'ID', name: 'Idaho' },
  { code: 'IL', name: 'Illinois' },
  { code: 'IN', name: 'Indiana' },
  { code: 'IA', name: 'Iowa' },
  { code: 'KS', name: 'Kansas' },
  { code: 'KY', name: 'Kentucky' },
  { code: 'LA', name: 'Louisiana' },
  { code: 'ME', name: 'Maine' },
  { code: 'MD', name: 'Maryland' },
  { code: 'MA', name: 'Massachusetts' },
  { code: 'MI', name: 'Michigan' },
  { code: 'MN', name: 'Minnesota' },
  { code: 'MS', name: 'Mississippi' },
  { code: 'MO', name: 'Missouri' },
  { code: 'MT', name: 'Montana' },
  { code: 'NE', name: 'Nebraska' },
  { code: 'NV', name: 'Nevada' },
  { code: 'NH', name: 'New Hampshire' },
  { code: 'NJ', name: 'New Jersey' },
  { code: 'NM', name: 'New Mexico' },
  { code: 'NY', name: 'New York' },
  { code: 'NC', name: 'North Carolina' },
  { code: 'ND', name: 'North Dakota' },
  { code: 'OH', name: 'Ohio' },
  { code: 'OK', name: 'Oklahoma' },
  { code: 'OR', name: 'Oregon' },
  { code: 'PA', name: 'Pennsylvania' },
  { code: 'RI', name: 'Rhode Island' },
  { code: 'SC', name: 'South Carolina' },
  { code: 'SD', name: 'South Dakota' },
  { code: 'TN', name: 'Tennessee' },
  { code: 'TX', name: 'Texas' },
  { code: 'UT', name: 'Utah' },
  { code: 'VT', name: 'Vermont' },
  { code: 'VA', name: 'Virginia' },
  { code: 'WA', name: 'Washington' },
  { code: 'WV', name: 'West Virginia' },
  { code: 'WI', name: 'Wisconsin' },
  { code: 'WY', name: 'Wyoming' },
] as const;

export type UsStateCode = (typeof US_STATES)[number]['code'];
const US_STATE_CODES = US_STATES.map((s) => s.code) as [UsStateCode, ...UsStateCode[]];

// One e-mail check shared with the mailer (src/core/email-address.ts); controls and Unicode format characters
// (\p{Cf}) are refused in every text field.
const CONTROL = FORBIDDEN_TEXT;

const LABELS = {
  fullName: 'Full name',
  email: 'E-mail',
  address1: 'Address line 1',
  address2: 'Address line 2',
  city: 'City',
  stateProvince: 'State / province',
  postalCode: 'Postal code',
  country: 'Country',
  usState: 'State',
  zip: 'ZIP code',
} as const;
type Field = keyof typeof LABELS;

const requiredText = (field: Field, max = MAX_TEXT) =>
  z
    .string({
      required_error: `${LABELS[field]} is required`,
      invalid_type_error: `${LABELS[field]} must be text`,
    })
    .trim()
    .min(1, `${LABELS[field]} is required`)
    .max(max, `${LABELS[field]} must be at most ${max} characters`)
    .refine(
      (s) => !CONTROL.test(s),
      `${LABELS[field]} must not contain control characters or invisible formatting characters`,
    );

const optionalText = (field: Field) =>
  z
    .string({ invalid_type_error: `${LABELS[field]} must be text` })
    .trim()
    .max(MAX_TEXT, `${LABELS[field]} must be at most ${MAX_TEXT} characters`)
    .refine(
      (s) => !CONTROL.test(s),
      `${LABELS[field]} must not contain control characters or invisible formatting characters`,
    )
    .optional()
    // An empty optional line is the same as none.
    .transform((s) => (s === undefined || s === '' ? undefined : s));

const email = requiredText('email', MAX_EMAIL).refine(
  (s) => isEmailAddress(s),
  'E-mail must be an e-mail address, e.g. name@example.com',
);

/** Wallet pages (international), the form's fields only. */
export const InternationalShippingFormSchema = z
  .object({
    fullName: requiredText('fullName'),
    email,
    address1: requiredText('address1'),
    address2: optionalText('address2'),
    city: requiredText('city'),
    stateProvince: requiredText('stateProvince'),
    postalCode: requiredText('postalCode', 32),
    country: requiredText('country'),
  })
  .strict();

/** QR pages (US only), the form's fields only. */
export const UsShippingFormSchema = z
  .object({
    fullName: requiredText('fullName'),
    email,
    address1: requiredText('address1'),
    address2: optionalText('address2'),
    city: requiredText('city'),
    usState: z
      .string({ required_error: 'State is required', invalid_type_error: 'State must be text' })
      .trim()
      .min(1, 'State is required')
      .transform((s) => s.toUpperCase())
      .pipe(
        z.enum(US_STATE_CODES, {
          errorMap: () => ({ message: 'State must be one of the 50 US states (two-letter code)' }),
        }),
      ),
    zip: requiredText('zip', 10).refine(
      (s) => /^\d{5}(?:-\d{4})?$/.test(s),
      'ZIP code must be 5 digits (or ZIP+4)',
    ),
  })
  .strict();

/** As sent to the API: the form plus its kind. */
export const InternationalShippingSchema = InternationalShippingFormSchema.extend({
  kind: z.literal('international'),
}).strict();
export const UsShippingSchema = UsShippingFormSchema.extend({ kind: z.literal('us') }).strict();
export const ShippingSchema = z.discriminatedUnion('kind', [InternationalShippingSchema, UsShippingSchema]);

export type ShippingInput = z.infer<typeof ShippingSchema>;

export const QuantitySchema = z
  .number({ required_error: 'Quantity is required', invalid_type_error: 'Quantity must be a number' })
  .int('Quantity must be a whole number')
  .min(MIN_QUANTITY, `Quantity must be at least ${MIN_QUANTITY}`)
  .max(MAX_QUANTITY, `Quantity must be at most ${MAX_QUANTITY}`);

const slug = z
  .string()
  .min(1)
  .max(100)
  .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a catalogue id');

export const QuoteRequestSchema = z
  .object({
    items: z
      .array(z.object({ productId: slug, variantId: slug.optional(), quantity: QuantitySchema }).strict())
      .min(1, 'A quote needs at least one item')
      .max(20, 'A quote has at most 20 items'),
    unpriced: z.boolean({ invalid_type_error: 'unpriced must be true or false' }).optional(),
    renew: z
      .string({ invalid_type_error: 'renew must be a quote token' })
      .min(1, 'renew must be a quote token')
      .max(8192, 'renew is too long')
      .optional(),
    wallet: z
      .string({ invalid_type_error: 'wallet must be a Solana address (base58)' })
      .regex(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/, 'wallet must be a Solana address (base58)')
      .optional(),
  })
  .strict();

/** POST /api/orders body. The shipping form is checked against the product's payment mode by the server. */
export const OrderRequestSchema = z
  .object({
    quote: z.string().min(1, 'quote is required').max(8192, 'quote is too long'),
    shipping: z.unknown(),
    paymentMethod: z.enum(['wallet', 'qr'], {
      errorMap: () => ({ message: "paymentMethod must be 'wallet' or 'qr'" }),
    }),
    referrer: z
      .string()
      .trim()
      .max(MAX_TEXT, `referrer must be at most ${MAX_TEXT} characters`)
      .refine(
        (s) => !CONTROL.test(s),
        'referrer must not contain control characters or invisible formatting characters',
      )
      .optional()
      .transform((s) => (s === '' ? undefined : s)),
    /** Wallet orders: the paying wallet's proof that it holds the money (./hold-proof.ts); no hold without it. */
    payer: PayerProofSchema.optional(),
  })
  .strict();

/** A POST /api/quotes body as the edge parsed it (src/server/http/orders-routes.ts). */
export type ParsedQuoteRequest = z.output<typeof QuoteRequestSchema>;

/** A POST /api/orders body as the edge parsed it (src/server/http/orders-routes.ts). */
export type ParsedOrderRequest = z.output<typeof OrderRequestSchema>;

/** Which shipping form a payment mode uses: wallet pages the international one, QR pages the US one. */
export function shippingSchemaFor(payment: 'wallet' | 'qr') {
  return payment === 'wallet' ? InternationalShippingSchema : UsShippingSchema;
}

/** The form-level alert of the spec for a payment mode. */
export function missingShippingMessage(payment: 'wallet' | 'qr'): string {
  return payment === 'wallet' ? MISSING_SHIPPING_WALLET : MISSING_SHIPPING_QR;
}

/** "address1, address2, city, state, postal code, country" (spec section 3), skipping an absent address2. */
export function joinShippingAddress(s: ShippingInput): string {
  const parts =
    s.kind === 'international'
      ? [s.address1, s.address2, s.city, s.stateProvince, s.postalCode, s.country]
      : [s.address1, s.address2, s.city, s.usState, s.zip];
  return parts.filter((p): p is string => typeof p === 'string' && p !== '').join(', ');
}

export interface FieldIssue {
  path: string;
  message: string;
}

/** zod issues as {path, message}, paths dotted ("items.0.quantity"). */
export function describeIssues(error: z.ZodError, prefix = ''): FieldIssue[] {
  return error.issues.map((i) => {
    const path = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    if (i.code === z.ZodIssueCode.unrecognized_keys)
      return { path, message: `Unknown field(s): ${i.keys.join(', ')}` };
    return { path, message: i.message };
  });
}

/** The refusal of a POST /api/quotes body that fails QuoteRequestSchema: 400 invalid_quote_request, first field. */
export function invalidQuoteRequest(error: z.ZodError): DomainError {
  const issues = describeIssues(error);
  return new DomainError('invalid', 'invalid_quote_request', issues[0]?.message ?? 'Invalid quote request', {
    field: issues[0]?.path,
    issues,
  });
}

/** The refusal of a POST /api/orders body that fails OrderRequestSchema: 400 invalid_order_request, first field. */
export function invalidOrderRequest(error: z.ZodError): DomainError {
  const issues = describeIssues(error);
  return new DomainError(
    'invalid',
    'invalid_order_request',
    issues[0] ? `${issues[0].path ? `${issues[0].path}: ` : ''}${issues[0].message}` : 'Invalid order',
    { field: issues[0]?.path, issues },
  );
}
