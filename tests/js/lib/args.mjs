// Command-line helpers shared by the tests/js scripts.

// Minimal --flag value parser: returns { flags, positional }. Unknown flags are an error.
export function parseArgs(argv, known, usage) {
  const flags = {};
  const positional = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      process.stdout.write(usage);
      process.exit(0);
    }
    if (a.startsWith('--')) {
      const eq = a.indexOf('=');
      const name = eq > 0 ? a.slice(2, eq) : a.slice(2);
      if (!known.includes(name)) fail(`unknown flag --${name}`, usage);
      if (eq > 0) flags[name] = a.slice(eq + 1);
      else if (i + 1 < argv.length) flags[name] = argv[++i];
      else fail(`flag --${name} needs a value`, usage);
    } else {
      positional.push(a);
    }
  }
  return { flags, positional };
}

export function fail(message, usage = '') {
  process.stderr.write(`error: ${message}\n${usage}`);
  process.exit(2);
}
