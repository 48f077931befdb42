import { useTick } from '../source/ui/run/run-tick.js';

const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/**
 * The spinner the run view drew before ink-spinner came back: the same "dots", turned by the run
 * view's tick (one timer for everything that moves). The bench builds its run view once with this in
 * ink-spinner's place, to measure what ink-spinner's own timer costs.
 */
export default function TickSpinner(_props: { type?: string }) {
  return <>{frames[useTick().frame % frames.length]}</>;
}
