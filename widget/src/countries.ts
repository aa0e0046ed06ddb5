/**
 * Country calling codes offered by the phone fields: Saudi Arabia first, then the Gulf and the region,
 * then other frequent ones. [ISO code, dialling code, English name, Arabic name].
 */
export const COUNTRIES: ReadonlyArray<readonly [string, string, string, string]> = [
  ['SA', '966', 'Saudi Arabia', 'السعودية'],
  ['AE', '971', 'United Arab Emirates', 'الإمارات'],
  ['KW', '965', 'Kuwait', 'الكويت'],
  ['QA', '974', 'Qatar', 'قطر'],
  ['BH', '973', 'Bahrain', 'البحرين'],
  ['OM', '968', 'Oman', 'عُمان'],
  ['EG', '20', 'Egypt', 'مصر'],
  ['JO', '962', 'Jordan', 'الأردن'],
  ['IQ', '964', 'Iraq', 'العراق'],
  ['LB', '961', 'Lebanon', 'لبنان'],
  ['PS', '970', 'Palestine', 'فلسطين'],
  ['SY', '963', 'Syria', 'سوريا'],
  ['YE', '967', 'Yemen', 'اليمن'],
  ['SD', '249', 'Sudan', 'السودان'],
  ['LY', '218', 'Libya', 'ليبيا'],
  ['TN', '216', 'Tunisia', 'تونس'],
  ['DZ', '213', 'Algeria', 'الجزائر'],
  ['MA', '212', 'Morocco', 'المغرب'],
  ['TR', '90', 'Türkiye', 'تركيا'],
  ['PK', '92', 'Pakistan', 'باكستان'],
  ['IN', '91', 'India', 'الهند'],
  ['GB', '44', 'United Kingdom', 'المملكة المتحدة'],
  ['US', '1', 'United States / Canada', 'الولايات المتحدة / كندا'],
  ['DE', '49', 'Germany', 'ألمانيا'],
  ['FR', '33', 'France', 'فرنسا'],
];

/** Digits only, without the trunk 0 buyers often type ("0500000001" is 500000001). */
export const nationalDigits = (value: string): string => value.replace(/\D/g, '').replace(/^0+/, '');

/** "500000001" shown as "50 000 0001" (Saudi grouping; other numbers in threes and fours). */
export function maskPhone(value: string, dial: string): string {
  const d = value.replace(/\D/g, '').slice(0, 15);
  const groups = dial === '966' && !d.startsWith('0') ? [2, 3, 4] : [3, 3, 4, 5];
  const out: string[] = [];
  let at = 0;
  for (const size of groups) {
    if (at >= d.length) break;
    out.push(d.slice(at, at + size));
    at += size;
  }
  if (at < d.length) out.push(d.slice(at));
  return out.join(' ');
}
