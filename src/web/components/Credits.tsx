import { useEffect, useRef, useState, type ReactNode } from 'react';

export const CREDITS_STEP_PX = 0.5;
export const CREDITS_INTERVAL_MS = 50;

function prefersReducedMotion(): boolean {
  return (
    typeof window.matchMedia === 'function' && window.matchMedia('(prefers-reduced-motion: reduce)').matches
  );
}

/**
 * Movie-credits text scrolling 0.5 px every 50 ms (spec §2). Stopped under prefers-reduced-motion; pauses while
 * hovered or focused; a button pauses and resumes it (WCAG 2.2.2). The region stays scrollable by hand.
 */
export function Credits({ label, children }: { label: string; children: ReactNode }) {
  const box = useRef<HTMLDivElement>(null);
  const [paused, setPaused] = useState(false);
  // Read in the effect, not at first render: the first frame is prerendered at build time and hydrated.
  const [reduced, setReduced] = useState(false);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const running = !reduced && !paused && !hovered && !focused;

  useEffect(() => {
    setReduced(prefersReducedMotion());
    if (typeof window.matchMedia !== 'function') return;
    const mq = window.matchMedia('(prefers-reduced-motion: reduce)');
    const onChange = () => setReduced(mq.matches);
    mq.addEventListener('change', onChange);
    return () => mq.removeEventListener('change', onChange);
  }, []);

  useEffect(() => {
    const el = box.current;
    // The preference read here too: on the first commit `reduced` is not set yet (it is read in the effect above,
    // whose re-render may come after a tick on a slow machine), and the text must not move even once.
    if (!running || !el || prefersReducedMotion()) return;
    let position = el.scrollTop;
    const timer = window.setInterval(() => {
      const max = el.scrollHeight - el.clientHeight;
      if (max <= 0) return;
      // Someone scrolled by hand: continue from there.
      if (Math.abs(el.scrollTop - position) > 2) position = el.scrollTop;
      position = position + CREDITS_STEP_PX > max ? 0 : position + CREDITS_STEP_PX;
      el.scrollTop = position;
    }, CREDITS_INTERVAL_MS);
    return () => window.clearInterval(timer);
  }, [running]);

  return (
    <div className="credits-wrap">
      <div
        ref={box}
        className="credits"
        role="region"
        aria-label={label}
        tabIndex={0}
        data-running={running}
        onMouseEnter={() => setHovered(true)}
        onMouseLeave={() => setHovered(false)}
        onFocus={() => setFocused(true)}
        onBlur={(e) => {
          if (!e.currentTarget.contains(e.relatedTarget)) setFocused(false);
        }}
      >
        <div className="credits-inner">{children}</div>
      </div>
      {!reduced && (
        <button
          type="button"
          className="button secondary small"
          aria-pressed={paused}
          onClick={() => setPaused((p) => !p)}
        >
          {paused ? 'Resume scrolling' : 'Pause scrolling'}
        </button>
      )}
    </div>
  );
}
