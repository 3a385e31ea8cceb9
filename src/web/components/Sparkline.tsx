/** A tiny inline SVG line of recent prices (display only). */
export function Sparkline({
  points,
  width = 160,
  height = 40,
}: {
  points: { t: number; price: number }[];
  width?: number;
  height?: number;
}) {
  if (points.length < 2) return null;
  const prices = points.map((p) => p.price);
  const min = Math.min(...prices);
  const max = Math.max(...prices);
  const t0 = points[0]?.t ?? 0;
  const t1 = points[points.length - 1]?.t ?? 1;
  const x = (t: number) => (t1 === t0 ? 0 : ((t - t0) / (t1 - t0)) * (width - 4) + 2);
  const y = (p: number) => (max === min ? height / 2 : height - 2 - ((p - min) / (max - min)) * (height - 4));
  const d = points.map((p, i) => `${i ? 'L' : 'M'}${x(p.t).toFixed(1)},${y(p.price).toFixed(1)}`).join('');
  const up = (points[points.length - 1]?.price ?? 0) >= (points[0]?.price ?? 0);
  return (
    <svg
      className="sparkline"
      width={width}
      height={height}
      viewBox={`0 0 ${width} ${height}`}
      role="img"
      aria-label={`Price over the last 24 hours, ${up ? 'up' : 'down'}`}
    >
      <path
        d={d}
        fill="none"
        stroke={up ? 'var(--up)' : 'var(--down)'}
        strokeWidth="2"
        strokeLinejoin="round"
        strokeLinecap="round"
      />
    </svg>
  );
}
