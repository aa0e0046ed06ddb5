import { getCountries, getCountryCallingCode, parsePhoneNumberFromString } from 'libphonenumber-js/max';

/**
 * A phone as the platform keeps it: the country calling code (digits, no plus) and the national number
 * (digits), and `e164` = both together, digits only, the key a customer is found by across stores.
 */
export interface Phone {
  countryCode: string;
  national: string;
  e164: string;
}

export const COUNTRY_CODE = /^(?:\+|00)?(\d{1,4})$/;

/** "+966", "00966" and "966" are the same country code; anything else is not one. */
export function normalizeCountryCode(raw: string): string | null {
  const match = COUNTRY_CODE.exec(raw.trim());
  return match ? match[1] : null;
}

/**
 * Parses a country code and a national number (spaces, dashes and a national trunk prefix such as the
 * Saudi leading 0 allowed) into a valid phone, or null when libphonenumber says it is not a valid number.
 */
export function parsePhone(countryCode: string, phone: string): Phone | null {
  const cc = normalizeCountryCode(countryCode);
  if (!cc || !/^[\d\s().-]{3,25}$/.test(phone.trim())) return null;
  let parsed: ReturnType<typeof parsePhoneNumberFromString>;
  try {
    parsed = parsePhoneNumberFromString(phone.trim(), { defaultCallingCode: cc });
  } catch {
    // libphonenumber throws on a calling code it does not know (e.g. 999) instead of answering undefined.
    return null;
  }
  if (!parsed || !parsed.isValid() || parsed.countryCallingCode !== cc) return null;
  return { countryCode: cc, national: parsed.nationalNumber, e164: `${cc}${parsed.nationalNumber}` };
}

/** Every calling code the platform can parse numbers of (digits, no plus): what a store may allow. */
export const SUPPORTED_COUNTRY_CODES: ReadonlySet<string> = new Set(
  getCountries().map((country) => String(getCountryCallingCode(country))),
);

/** Shows only the last 3 digits of the national number: "******001". */
export function maskPhone(national: string): string {
  const visible = national.slice(-3);
  return '*'.repeat(Math.max(national.length - visible.length, 3)) + visible;
}
