import type { EmailTemplate } from './common';
import { checkoutReminder, type CheckoutReminderData } from './checkout-reminder';
import { delivery, type DeliveryData } from './delivery';
import { keyClaim, type KeyClaimData } from './key-claim';
import { orderNotice, type OrderNoticeData } from './order-notice';
import { priceChange, type PriceChangeData } from './price-change';
import { refund, type RefundData } from './refund';
import { renewalFailed, type RenewalFailedData } from './renewal-failed';
import { signIn, type SignInData } from './sign-in';
import { subscriptionRenewed, type SubscriptionRenewedData } from './subscription-renewed';

export type { Brand, Rendered } from './layout';
export type {
  CheckoutReminderData,
  DeliveryData,
  PriceChangeData,
  RefundData,
  RenewalFailedData,
  SignInData,
  SubscriptionRenewedData,
  KeyClaimData,
  OrderNoticeData,
};

/** Every buyer e-mail, by name, with the data it takes. */
export interface TemplateData {
  delivery: DeliveryData;
  refund: RefundData;
  subscription_renewed: SubscriptionRenewedData;
  renewal_failed: RenewalFailedData;
  price_change: PriceChangeData;
  sign_in: SignInData;
  checkout_reminder: CheckoutReminderData;
  key_claim: KeyClaimData;
  order_notice: OrderNoticeData;
}

export type TemplateName = keyof TemplateData;

export const TEMPLATES: { readonly [N in TemplateName]: EmailTemplate<TemplateData[N]> } = {
  delivery,
  refund,
  subscription_renewed: subscriptionRenewed,
  renewal_failed: renewalFailed,
  price_change: priceChange,
  sign_in: signIn,
  checkout_reminder: checkoutReminder,
  key_claim: keyClaim,
  order_notice: orderNotice,
};

export const TEMPLATE_NAMES = Object.keys(TEMPLATES) as TemplateName[];
