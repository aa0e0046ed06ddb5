/**
 * Right-to-left order for one line of the invoice PDF. pdfkit shapes Arabic (through fontkit: contextual
 * forms, ligatures, and a run of Arabic laid out right to left) but lays every string out as one run, so a
 * line that mixes Arabic with digits or Latin letters ("بطاقة شحن 100 ريال") would come out with its
 * numbers reversed. This splits a line into directional runs and orders them for display, following the
 * Unicode bidirectional algorithm (UAX #9) for what invoices hold: strong Arabic (R), strong Latin and
 * digits (L), and neutrals (spaces, punctuation) that take the direction of the runs around them.
 */

export type Direction = 'ltr' | 'rtl';

export interface BidiRun {
  text: string;
  direction: Direction;
}

const ARABIC = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF]/;
const STRONG_LTR = /[A-Za-z0-9\u00C0-\u024F\u0660-\u0669]/;

const TERMINATOR = /[%#+$\u066A\u00B0]/;
const DIGIT = /[0-9\u0660-\u0669]/;

type Klass = 'R' | 'L' | 'N';

function classify(ch: string): Klass {
  if (STRONG_LTR.test(ch)) return 'L';
  if (ARABIC.test(ch)) return 'R';
  return 'N';
}

/** The paragraph's direction: that of its first strong character (UAX #9 P2), else left to right. */
export function paragraphDirection(text: string): Direction {
  for (const ch of text) {
    const k = classify(ch);
    if (k !== 'N') return k === 'R' ? 'rtl' : 'ltr';
  }
  return 'ltr';
}

/** Runs in display order, left to right, each to be laid out in its own direction. */
export function visualRuns(text: string, base: Direction = paragraphDirection(text)): BidiRun[] {
  const chars = [...text];
  const classes = chars.map(classify);
  // A terminator next to a number is part of it (W5): "15.00%" and "#12" read left to right.
  chars.forEach((ch, i) => {
    if (TERMINATOR.test(ch) && (DIGIT.test(chars[i - 1] ?? '') || DIGIT.test(chars[i + 1] ?? ''))) {
      classes[i] = 'L';
    }
  });
  // Neutrals between two strong characters of one direction take it; others take the paragraph's (N1, N2).
  const resolved: Array<'R' | 'L'> = classes.map((k, i) => {
    if (k !== 'N') return k;
    let before: Klass = 'N';
    for (let j = i - 1; j >= 0 && before === 'N'; j -= 1) before = classes[j]!;
    let after: Klass = 'N';
    for (let j = i + 1; j < classes.length && after === 'N'; j += 1) after = classes[j]!;
    if (before !== 'N' && before === after) return before;
    return base === 'rtl' ? 'R' : 'L';
  });
  const runs: BidiRun[] = [];
  chars.forEach((ch, i) => {
    const direction: Direction = resolved[i] === 'R' ? 'rtl' : 'ltr';
    const last = runs[runs.length - 1];
    if (last && last.direction === direction) last.text += ch;
    else runs.push({ text: ch, direction });
  });
  // In a right-to-left paragraph the runs are shown from the last to the first.
  return base === 'rtl' ? runs.reverse() : runs;
}
