// Whether the extension's package.json declares its debugger (`contributes.debuggers`): activation
// (extension.ts) registers the debug adapter, its views and commands only then, since registering a
// view package.json does not declare fails with a notification.
//
// Invariants: pure; package.json is read as unknown data: anything but an object whose `contributes`
// is an object holding a `debuggers` array is "not declared".

export function debuggerDeclared(packageJson: unknown): boolean {
  const contributes =
    typeof packageJson === 'object' && packageJson !== null
      ? (packageJson as Record<string, unknown>).contributes
      : undefined;
  return (
    typeof contributes === 'object' &&
    contributes !== null &&
    Array.isArray((contributes as Record<string, unknown>).debuggers)
  );
}
