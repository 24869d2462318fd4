// The peer floor of `assay run` (bench/cold.ts): a new node process that loads the OpenAI SDK and makes
// the same calls against the same fake — N calls of one ~4,900-character prompt (the size of assay's
// rubric prompts on the bench's workload), K in flight — and nothing else: no database, no queue, no
// grading. Plain JavaScript, so no compile step is charged to it. Args: N K. Env: OPENAI_BASE_URL.
const [n, k] = process.argv.slice(2).map(Number);
const { default: OpenAI } = await import('openai');
const client = new OpenAI({ apiKey: 'sk-bench', baseURL: process.env.OPENAI_BASE_URL, maxRetries: 0 });
const body = { model: 'gpt-4.1', max_tokens: 1000, temperature: 0, messages: [{ role: 'user', content: 'x'.repeat(4900) }] };
let next = 0;
async function lane() {
  while (next < n) {
    next++;
    const r = await client.chat.completions.create(body);
    if (!r.choices?.length) throw new Error('the fake sent no choice');
  }
}
await Promise.all(Array.from({ length: k }, lane));
