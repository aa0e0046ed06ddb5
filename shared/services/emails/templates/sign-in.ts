import Joi from 'joi';
import { layout } from './layout';
import { link, type EmailTemplate } from './common';

/** The buyer account's sign-in link: one use, short-lived. */
export interface SignInData {
  url: string;
  expires_minutes: number;
}

const T = {
  en: {
    subject: (store: string) => `Sign in to ${store}`,
    title: 'Your sign-in link',
    body: (m: number) => `Use this link to sign in to your account. It works once, within ${m} minutes.`,
    button: 'Sign in',
    ignore: 'If you did not ask for it, ignore this e-mail.',
  },
  ar: {
    subject: (store: string) => `تسجيل الدخول إلى ${store}`,
    title: 'رابط تسجيل الدخول',
    body: (m: number) => `استخدم هذا الرابط لتسجيل الدخول إلى حسابك. يعمل مرة واحدة خلال ${m} دقيقة.`,
    button: 'تسجيل الدخول',
    ignore: 'إن لم تطلبه فتجاهل هذا البريد.',
  },
};

export const signIn: EmailTemplate<SignInData> = {
  schema: Joi.object<SignInData, true>({
    url: link().required(),
    expires_minutes: Joi.number().integer().min(1).max(1440).required(),
  }),
  render(locale, brand, data) {
    const t = T[locale];
    return layout(locale, brand, {
      subject: t.subject(brand.name),
      title: t.title,
      blocks: [
        { kind: 'paragraph', text: t.body(data.expires_minutes) },
        { kind: 'button', label: t.button, url: data.url },
        { kind: 'paragraph', text: t.ignore },
      ],
    });
  },
};
