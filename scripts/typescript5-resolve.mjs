// Module resolve hook for scripts/client-generate.ts. openapi-typescript prints its types with the
// TypeScript 5 compiler API; the project's own `typescript` is 7 (the native compiler, no JS API).
// package.json installs TypeScript 5 under the alias `typescript5` and this hook hands it to
// openapi-typescript alone: every other import of `typescript` still gets the project's compiler.
export async function resolve(specifier, context, next) {
  if (specifier === 'typescript' && context.parentURL?.includes('/node_modules/openapi-typescript/')) {
    return next('typescript5', context);
  }
  return next(specifier, context);
}
