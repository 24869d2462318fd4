import type { ProviderKeys } from '../../judges/adapters/index.ts';

/**
 * The judge used when none is named — by `assay grade`, POST /api/grades — and the line that says so
 * (the `npm start` banner, every page footer). One table, first match wins, so the words can never
 * name a different judge than the one that grades.
 *
 * OPENAI_BASE_URL alone picks no judge: it is the endpoint of the `gpt` judge (a proxy, or an
 * OpenAI-compatible server speaking for it), which still needs OPENAI_API_KEY; and the bundled
 * `local-openai-compatible` judge reads its server from its own file (baseUrl, model, apiKeyEnv),
 * not from OPENAI_BASE_URL. Guessing either would send answers to an endpoint nobody chose, so the
 * default stays the offline lexical baseline and the description says what to do instead.
 */

export interface DefaultJudge {
  /** A judge id in judges/. */
  ref: string;
  /** One line for people: which judge, and why it was chosen. */
  description: string;
}

type Keys = Pick<ProviderKeys, 'anthropicApiKey' | 'openaiApiKey' | 'openaiBaseUrl'>;

const LEXICAL = 'lexical baseline judge (offline, not an LLM)';

/** First match wins. */
const CHOICES: ReadonlyArray<{ when: (k: Keys) => boolean; choose: (k: Keys) => DefaultJudge }> = [
  { when: (k) => Boolean(k.anthropicApiKey), choose: () => ({ ref: 'claude', description: 'claude, Anthropic judge (ANTHROPIC_API_KEY set)' }) },
  {
    when: (k) => Boolean(k.openaiApiKey),
    choose: (k) => ({ ref: 'gpt', description: `gpt, OpenAI judge (OPENAI_API_KEY set${k.openaiBaseUrl ? `; endpoint OPENAI_BASE_URL ${k.openaiBaseUrl}` : ''})` }),
  },
  {
    when: (k) => Boolean(k.openaiBaseUrl),
    choose: () => ({ ref: 'lexical', description: `${LEXICAL}: OPENAI_BASE_URL is set without OPENAI_API_KEY, which the gpt judge needs; or name a judge file` }),
  },
  { when: () => true, choose: () => ({ ref: 'lexical', description: LEXICAL }) },
];

export function defaultJudge(keys: Keys): DefaultJudge {
  return CHOICES.find((c) => c.when(keys))!.choose(keys);
}
