/**
 * Log-gamma and the regularized upper incomplete gamma Q(a, x), for chi-square tail
 * probabilities (Cochran's Q). Q is computed directly (never as 1 - P where P is near 1), so
 * tiny tails keep their relative accuracy.
 */

const LN_SQRT_2PI = 0.5 * Math.log(2 * Math.PI);
const LN_SQRT_PI = 0.5 * Math.log(Math.PI);

// Lanczos approximation, g = 607/128, 15 terms (Godfrey's coefficients): ~1e-15 relative.
const LANCZOS_G = 607 / 128;
const LANCZOS = [
  0.99999999999999709182, 57.156235665862923517, -59.597960355475491248, 14.136097974741747174, -0.49191381609762019978,
  0.33994649984811888699e-4, 0.46523628927048575665e-4, -0.98374475304879564677e-4, 0.15808870322491248884e-3, -0.21026444172410488319e-3,
  0.2174396181152126432e-3, -0.16431810653676389022e-3, 0.84418223983852743293e-4, -0.2619083840158140867e-4, 0.36899182659531622704e-5,
];

/** ln Γ(x) for x > 0. Integers and half-integers (every chi-square df/2) are summed exactly. */
export function lnGamma(x: number): number {
  if (!(x > 0)) throw new RangeError(`lnGamma: x must be positive (got ${x})`);
  if (x <= 512 && Number.isInteger(2 * x)) return lnGammaHalfInteger(x);
  if (x < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * x)) - lnGamma(1 - x);
  const z = x - 1;
  let sum = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) sum += LANCZOS[i]! / (z + i);
  const t = z + LANCZOS_G + 0.5;
  return LN_SQRT_2PI + (z + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** Γ(n) = (n-1)!, Γ(n + 1/2) = √π · Π (k - 1/2); summing logs keeps the error near n·ε. */
function lnGammaHalfInteger(x: number): number {
  let acc = Number.isInteger(x) ? 0 : LN_SQRT_PI;
  for (let k = Number.isInteger(x) ? 2 : 0.5; k < x; k += 1) acc += Math.log(k);
  return acc;
}

/** Regularized upper incomplete gamma Q(a, x) = Γ(a, x) / Γ(a). */
export function gammaQ(a: number, x: number): number {
  if (!(a > 0)) throw new RangeError(`gammaQ: a must be positive (got ${a})`);
  if (Number.isNaN(x)) return NaN;
  if (x <= 0) return 1;
  if (x === Infinity) return 0;
  const logPrefactor = -x + a * Math.log(x) - lnGamma(a);
  if (x < a + 1) return 1 - Math.exp(logPrefactor) * lowerSeries(a, x);
  return Math.exp(logPrefactor) * upperContinuedFraction(a, x);
}

/** Σ x^n / (a (a+1) ... (a+n)): P(a, x) = e^{-x} x^a / Γ(a) · series; converges fast for x < a + 1. */
function lowerSeries(a: number, x: number): number {
  let ap = a;
  let term = 1 / a;
  let sum = term;
  for (let n = 0; n < 100_000; n++) {
    ap += 1;
    term *= x / ap;
    sum += term;
    if (Math.abs(term) < Math.abs(sum) * 1e-17) return sum;
  }
  throw new Error(`gammaQ series did not converge (a=${a}, x=${x})`);
}

/** Continued fraction for Γ(a, x) e^x x^{-a} by the modified Lentz method; converges fast for x ≥ a + 1. */
function upperContinuedFraction(a: number, x: number): number {
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let i = 1; i < 100_000; i++) {
    const an = -i * (i - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) <= Number.EPSILON) return h;
  }
  throw new Error(`gammaQ continued fraction did not converge (a=${a}, x=${x})`);
}

/** Upper tail of the chi-square distribution, P(X ≥ x) with df degrees of freedom. */
export function chiSquareSf(x: number, df: number): number {
  if (!(df > 0)) throw new RangeError(`chiSquareSf: df must be positive (got ${df})`);
  return gammaQ(df / 2, x / 2);
}
