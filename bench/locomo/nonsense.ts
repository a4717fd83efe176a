// Off-topic queries for `nonsense_hit_rate`: the share of queries that return ANY result, where
// a store should answer nothing (bench/RESULTS-relevance.md). Deterministic (a seeded PRNG): the
// same list on every run and machine. Two kinds: random pseudo-words ("xyzzy frobnicate") and
// sentences about subjects far from everyday conversation (lab science, low-level computing).

import { rng as prng } from '../../test/core/vector/data'; // mulberry32, seeded: the same list on every run

const ONSETS = [
  'b',
  'br',
  'd',
  'dr',
  'f',
  'fl',
  'g',
  'gl',
  'k',
  'kr',
  'm',
  'n',
  'p',
  'pl',
  'qu',
  'sn',
  'str',
  'th',
  'tr',
  'v',
  'x',
  'z',
  'zw',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'y', 'oo', 'ae', 'ui'];
const CODAS = ['', 'b', 'x', 'zz', 'rk', 'mp', 'nt', 'th', 'q', 'sk', 'lv', 'gg'];

// Technical terms only: a frame word like "work" or "notes" would match everyday chat, and a
// keyword match on a real word is evidence by definition (src/core/search/relevance.ts).
const SUBJECTS = [
  'eigenvalue decomposition',
  'quaternion interpolation',
  'hypervisor pagetables',
  'mitochondrial membrane',
  'thermocouple hysteresis',
  'isotope fractionation',
  'tensor contraction',
  'kernel module',
  'bytecode verifier',
  'monad transformer',
  'lattice dislocations',
  'photon entanglement',
  'enzyme kinetics',
  'semiconductor doping',
  'compiler register allocation',
  'firmware bootloader',
  'Riemannian manifold',
  'polynomial factorization',
  'centrifuge rotor',
  'gyroscope precession',
  'ribosome codon',
  'oscilloscope probe',
  'Fourier windowing',
  'cryptographic nonce',
];
// Frames of stop-words only (src/core/text/stopwords.ts).
const FRAMES = ['{s}', 'what is {s}?', 'how does {s} do it?', '{s} and {t}', 'is there {s} in {t}?', 'about {s}'];

function pick<T>(rand: () => number, xs: readonly T[]): T {
  return xs[Math.floor(rand() * xs.length)]!;
}

function pseudoWord(rand: () => number): string {
  const syllables = 2 + Math.floor(rand() * 2);
  let w = '';
  for (let i = 0; i < syllables; i++) w += pick(rand, ONSETS) + pick(rand, VOWELS);
  return w + pick(rand, CODAS);
}

/** `pseudo` queries of 2–3 pseudo-words, then `sentences` off-topic sentences; same output for the same seed. */
export function nonsenseQueries(opts: { pseudo?: number; sentences?: number; seed?: number } = {}): string[] {
  const rand = prng(opts.seed ?? 0x5eed);
  const out: string[] = [];
  for (let i = 0; i < (opts.pseudo ?? 160); i++) {
    const n = 2 + Math.floor(rand() * 2);
    out.push(Array.from({ length: n }, () => pseudoWord(rand)).join(' '));
  }
  for (let i = 0; i < (opts.sentences ?? 80); i++) {
    out.push(pick(rand, FRAMES).replace('{s}', pick(rand, SUBJECTS)).replace('{t}', pick(rand, SUBJECTS)));
  }
  return out;
}
