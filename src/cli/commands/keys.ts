import type { Command } from '../command.ts';
import { table } from '../table.ts';
import { Fields } from '../../domain/fields.ts';
import { withDatabase } from '../database.ts';
import { fieldFlag } from '../io.ts';

/** API key management straight on the database (works before any key exists). */

const create: Command = {
  path: ['keys', 'create'],
  summary: 'Create an API key (shown once; only its SHA-256 hash and prefix are stored)',
  usage: '--scope read|write|admin|annotate [--scope …] [--name N]',
  options: { scope: { type: 'string', multiple: true }, name: { type: 'string' } },
  async run({ values }) {
    const { createKey } = await import('../../services/keys.ts');
    const scopes = (values.scope as string[] | undefined) ?? [];
    const name = fieldFlag(values, 'name', Fields.keyName);
    const k = await withDatabase((d) => createKey(d, { scopes, name }));
    return {
      json: k,
      text: [`${k.key}`, '', `prefix ${k.prefix}, scopes ${k.scopes.join(', ')}, name "${k.name}"`, 'The key is shown only now: store it safely.'].join('\n'),
    };
  },
};

const list: Command = {
  path: ['keys', 'list'],
  summary: 'List API keys (prefix, name, scopes, created, revoked, last used)',
  usage: '',
  options: {},
  async run() {
    const { listKeys } = await import('../../services/keys.ts');
    const keys = await withDatabase((d) => listKeys(d));
    return {
      json: { keys },
      text: table(
        ['prefix', 'name', 'scopes', 'created', 'revoked', 'last used'],
        keys.map((k) => [k.prefix, k.name, k.scopes.join(','), k.createdAt, k.revokedAt, k.lastUsedAt]),
      ),
    };
  },
};

const revoke: Command = {
  path: ['keys', 'revoke'],
  summary: 'Revoke an API key by its prefix',
  usage: 'PREFIX',
  options: {},
  positionals: true,
  async run({ positionals }) {
    const { badInput } = await import('../../domain/errors.ts');
    const { revokeKey } = await import('../../services/keys.ts');
    if (positionals.length !== 1) throw badInput('expected exactly one key prefix (see assay keys list)');
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(positionals[0]!)) throw badInput(`'${positionals[0]!.slice(0, 60)}' is not a key prefix (see assay keys list)`);
    const k = await withDatabase((d) => revokeKey(d, positionals[0]!));
    return { json: k, text: `revoked ${k.prefix} ("${k.name}") at ${k.revokedAt}` };
  },
};

export default [create, list, revoke];
