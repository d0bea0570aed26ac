/** Statistics for comparing memory systems; pure functions, seeded where random. */
export { mcnemarExact, cochranQ, holm, type CochranQ } from './tests.js';
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
  type BootstrapOptions,
  type Design,
  type PairedBootstrap,
  type MeanInterval,
} from './bootstrap.js';
export { chiSquareSf, gammaQ, lnGamma } from './gamma.js';
export { Xoshiro128 } from './rng.js';
