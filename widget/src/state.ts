import type { EmbedAnswers } from './embed-types';

type Product = EmbedAnswers['GET /api/embed/product/{productId}'];
type Customer = EmbedAnswers['POST /api/embed/auth/validate']['customer'];
type Coupon = EmbedAnswers['POST /api/embed/apply-coupon'];
type CheckoutSession = EmbedAnswers['POST /api/embed/checkout'];

/**
 * The dialog's one state object and the steps it goes through. No DOM here: the step table is tested on
 * its own (test/unit/widget/state.test.ts), and every part of the dialog reads and writes this object only.
 *
 *   loading ──loaded──▶ form ──started──▶ paying ──paid──▶ done
 *      │ ▲                │ ▲               │
 *   failed │retry         │ └──back/gone────┘
 *      └───┘              └──paid (a free order)──▶ done
 *
 * Every step goes to `closed` on `close`, and nothing leaves `closed`.
 */

export type Step = 'loading' | 'failed' | 'form' | 'paying' | 'done' | 'closed';
export type StepEvent = 'loaded' | 'loadFailed' | 'retry' | 'started' | 'back' | 'gone' | 'paid' | 'close';

const MOVES: Record<Step, Partial<Record<StepEvent, Step>>> = {
  loading: { loaded: 'form', loadFailed: 'failed' },
  failed: { retry: 'loading' },
  form: { started: 'paying', paid: 'done' },
  paying: { back: 'form', gone: 'form', paid: 'done' },
  done: {},
  closed: {},
};

/** The step after `event`, or null when the event means nothing in `step` (a late answer, a double click). */
export function nextStep(step: Step, event: StepEvent): Step | null {
  if (event === 'close') return step === 'closed' ? null : 'closed';
  return MOVES[step][event] ?? null;
}

export interface OtpState {
  session: string;
  masked: string;
  stage: 'code' | 'register';
  /** When a new code may be asked for (ms since the epoch). */
  resendAt: number;
}

export interface DialogState {
  step: Step;
  product: Product | null;
  customer: Customer | null;
  token: string | null;
  /** Guest first: the fewest steps to buy; returning customers are signed in by their saved token anyway. */
  mode: 'phone' | 'guest';
  otp: OtpState | null;
  coupon: Coupon | null;
  /** The checkout made for the form as it was (`fingerprint`), reused when Pay is pressed again unchanged. */
  session: { fingerprint: string; data: CheckoutSession } | null;
  /** The provider's window, opened during the Pay click. */
  popup: { closed: boolean; close(): void; location: { href: string } } | null;
  /** Status checks that failed in a row (the buyer is told after a few). */
  pollFailures: number;
}

export const initialState = (): DialogState => ({
  step: 'loading',
  product: null,
  customer: null,
  token: null,
  mode: 'guest',
  otp: null,
  coupon: null,
  session: null,
  popup: null,
  pollFailures: 0,
});

/** Moves `state` on; answers whether the move was allowed (a refused move changes nothing). */
export function move(state: DialogState, event: StepEvent): boolean {
  const next = nextStep(state.step, event);
  if (!next) return false;
  state.step = next;
  return true;
}
