import type { Customer } from '../../../db/models';

/** Who is buying: the token's customer (authenticated checkout) or the guest's own details. */
export interface Buyer {
  customerId: number | null;
  firstName: string;
  lastName: string;
  email: string;
  countryCode: string;
  phone: string;
  /** The language they read (Accept-Language): their delivery message's. */
  locale?: 'ar' | 'en';
}

export function buyerFromCustomer(customer: Customer): Buyer {
  return {
    customerId: customer.id,
    firstName: customer.first_name,
    lastName: customer.last_name,
    email: customer.email,
    countryCode: customer.country_code,
    phone: customer.phone,
  };
}

/** A guest's own details, as the Embed and Storefront checkouts take them. */
export interface GuestDetails {
  customer_first_name: string;
  customer_last_name: string;
  customer_email: string;
  customer_country_code: string;
  customer_phone: string;
}

export function buyerFromGuest(guest: GuestDetails, locale?: Buyer['locale']): Buyer {
  return {
    customerId: null,
    firstName: guest.customer_first_name,
    lastName: guest.customer_last_name,
    email: guest.customer_email,
    countryCode: guest.customer_country_code,
    phone: guest.customer_phone,
    ...(locale ? { locale } : {}),
  };
}
