/** Statistics for comparing memory systems; pure functions, seeded where random. */
export { mcnemarExact, mcnemarExactLog10, cochranQ, holm, holmLog10, holmWithBounds, type CochranQ } from './tests.js';
export { wilson, fleissKappa, fleissKappaFromVotes, Z95, type Interval, type FleissKappa } from './intervals.js';
export {
  pairedBootstrap,
  pairedBootstrapDesign,
  bootstrapMean,
  percentileSorted,
  percentileInterval,
  nullShiftedP,
  plainDesign,
  designStatistic,
  replicates,
  resampleSums,
  signFlipP,
  pairedP,
  signFlipCoefficients,
  DEFAULT_RESAMPLES,
  EXACT_SIGN_FLIP_MAX,
  type BootstrapOptions,
  type Design,
  type PairedBootstrap,
  type MeanInterval,
} from './bootstrap.js';
export { chiSquareSf, gammaQ, lnGamma } from './gamma.js';
export { Xoshiro128 } from './rng.js';
