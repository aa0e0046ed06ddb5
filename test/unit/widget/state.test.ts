import { expect } from 'chai';
import { initialState, move, nextStep, Step, StepEvent } from '../../../widget/src/state';

/** The widget dialog's steps (widget/src/state.ts): what each event may move, and what it may not. */
describe('widget dialog steps', () => {
  it('goes loading → form → paying → done on the happy path', () => {
    const s = initialState();
    expect(s.step).to.equal('loading');
    for (const [event, step] of [
      ['loaded', 'form'],
      ['started', 'paying'],
      ['paid', 'done'],
      ['close', 'closed'],
    ] as const) {
      expect(move(s, event), event).to.equal(true);
      expect(s.step).to.equal(step);
    }
  });

  it('retries a failed load, places a free order straight from the form, and goes back from paying', () => {
    expect(nextStep('loading', 'loadFailed')).to.equal('failed');
    expect(nextStep('failed', 'retry')).to.equal('loading');
    expect(nextStep('form', 'paid')).to.equal('done');
    expect(nextStep('paying', 'back')).to.equal('form');
    expect(nextStep('paying', 'gone')).to.equal('form');
  });

  it('refuses moves that mean nothing where the dialog is (late answers, double clicks)', () => {
    const refused: [Step, StepEvent][] = [
      ['loading', 'started'],
      ['loading', 'paid'],
      ['failed', 'loaded'],
      ['form', 'loaded'],
      ['form', 'back'],
      ['paying', 'started'],
      ['done', 'paid'],
      ['done', 'back'],
    ];
    for (const [step, event] of refused) expect(nextStep(step, event), `${step} + ${event}`).to.equal(null);
    const s = initialState();
    expect(move(s, 'paid')).to.equal(false);
    expect(s.step).to.equal('loading');
  });

  it('closes from every step once, and nothing leaves closed', () => {
    for (const step of ['loading', 'failed', 'form', 'paying', 'done'] as Step[]) {
      expect(nextStep(step, 'close')).to.equal('closed');
    }
    for (const event of [
      'loaded',
      'loadFailed',
      'retry',
      'started',
      'back',
      'gone',
      'paid',
      'close',
    ] as StepEvent[]) {
      expect(nextStep('closed', event), event).to.equal(null);
    }
  });

  it('starts as a guest with nothing chosen', () => {
    expect(initialState()).to.deep.equal({
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
  });
});
