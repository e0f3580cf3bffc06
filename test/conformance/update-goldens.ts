/**
 * Writes the golden files under test/fixtures/conformance/golden/ (`npm run goldens`); the
 * tests only compare against them, so no test run can rewrite what it is checked against.
 *
 * A changed verdict (or corpus summary on an unchanged corpus) is refused while
 * CHECKER_VERSION is unchanged: a change in behaviour must come with a version bump
 * (src/conformance/version.ts). The one exception, set knowingly by the maintainer:
 *
 *   npm run goldens -- --allow-same-version
 *
 * overwrites them under the same CHECKER_VERSION. It is only for a checker version that has
 * never been released (no signed verdict carrying it has left the project), so no published
 * verdict can disagree with the new golden file. It was used once, for
 * VeronikAI/0.1+attestations.1 before its first release, to take in the review fixes (capped
 * rules flagged, 403 judged like 401, HTML first, signed scope and not-run lines, …). Once a
 * version is released, bump it instead. The changed fixtures are printed either way.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CORPUS_ABSENT_NOTE, HAVE_CORPUS } from './helpers.js';
import {
  GOLDEN_SUMMARY,
  GOLDEN_VERDICTS,
  fixtureVerdicts,
  formatSummary,
  formatVerdicts,
  summariseCorpus,
  type CorpusSummary,
  type GoldenVerdicts,
} from './goldens.js';

const allowSameVersion = process.argv.includes('--allow-same-version');
const old = <T>(path: string): T | null => (existsSync(path) ? (JSON.parse(readFileSync(path, 'utf8')) as T) : null);

function updateVerdicts(): void {
  const current = fixtureVerdicts();
  const golden = old<GoldenVerdicts>(GOLDEN_VERDICTS);
  if (golden && golden.checker === current.checker) {
    const changed = Object.keys(golden.verdicts).filter(
      (k) => k in current.verdicts && JSON.stringify(golden.verdicts[k]) !== JSON.stringify(current.verdicts[k]),
    );
    if (changed.length > 0 && !allowSameVersion) {
      throw new Error(
        `behaviour changed for ${changed.length} fixtures (${changed.slice(0, 5).join(', ')}) but CHECKER_VERSION is still ${current.checker}: bump it in src/conformance/version.ts, then regenerate`,
      );
    }
    if (changed.length > 0)
      console.warn(
        `--allow-same-version: ${changed.length} fixtures changed under unchanged ${current.checker} (allowed only before its first release): ${changed.join(', ')}`,
      );
  }
  writeFileSync(GOLDEN_VERDICTS, formatVerdicts(current));
  console.log(`wrote ${GOLDEN_VERDICTS}`);
}

function updateSummary(): void {
  if (!HAVE_CORPUS) {
    console.warn(`${CORPUS_ABSENT_NOTE}; ${GOLDEN_SUMMARY} left as it is`);
    return;
  }
  const current = summariseCorpus();
  const golden = old<CorpusSummary>(GOLDEN_SUMMARY);
  if (
    golden &&
    golden.checker === current.checker &&
    golden.corpusFingerprint === current.corpusFingerprint &&
    JSON.stringify(golden) !== JSON.stringify(current) &&
    !allowSameVersion
  ) {
    throw new Error(`the corpus summary changed on an unchanged corpus but CHECKER_VERSION is still ${current.checker}: bump it first`);
  }
  writeFileSync(GOLDEN_SUMMARY, formatSummary(current));
  console.log(`wrote ${GOLDEN_SUMMARY}`);
}

try {
  updateVerdicts();
  updateSummary();
} catch (e) {
  console.error(`goldens: ${(e as Error).message}`);
  process.exitCode = 1;
}
