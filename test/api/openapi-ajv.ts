import { Ajv2020 } from 'ajv/dist/2020.js';

/**
 * A JSON Schema 2020-12 validator (what OpenAPI 3.1 uses) holding an OpenAPI document's components, so
 * every "#/components/schemas/X" of an operation's schema resolves; shared by the tests that check real
 * responses and the document's examples against it.
 */
export function openApiValidator(components: unknown): Ajv2020 {
  const ajv = new Ajv2020({
    strict: false, // OpenAPI's own keywords (example, discriminator) sit beside JSON Schema's
    allErrors: true,
    formats: {
      'date-time': (s: string) => /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/.test(s) && !Number.isNaN(Date.parse(s)),
      uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
    },
  });
  ajv.addSchema({ $id: 'openapi.json', components });
  return ajv;
}
