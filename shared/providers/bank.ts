/**
 * Bank transfer: instructions only. The customer transfers the amount to the store's account and the order
 * waits in Under review until the merchant confirms the money arrived; no provider is ever called.
 */
export interface BankDetails {
  bank_name: string;
  account_name: string;
  account_number: string;
  iban: string;
}

/** The store's bank details as the spec shows them (all strings), or null when any is missing. */
export function bankDetails(settings: Record<string, unknown>): BankDetails | null {
  const keys = ['bank_name', 'account_name', 'account_number', 'iban'] as const;
  const out: Partial<BankDetails> = {};
  for (const key of keys) {
    const value = settings[key];
    if (typeof value !== 'string' && typeof value !== 'number') return null;
    const text = String(value).trim();
    if (text === '') return null;
    out[key] = text;
  }
  return out as BankDetails;
}
