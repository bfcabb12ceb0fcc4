// Types of spec/tiers.js (plain CommonJS, since .mocharc.js loads it before ts-node is registered).
export interface Tier {
  spec: string[];
  ignore: string[];
}
export const tiers: Record<'unit' | 'integration' | 'interop' | 'slow', Tier>;
/** The spec globs and ignores of `tier` ('all': every tier). */
export function select(tier: string): Tier;
