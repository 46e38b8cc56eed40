// --extern-pre-js of the threaded engine: emcc 3.1.6's Node code uses the CommonJS names
// `require` and `__dirname`, which an ES module lacks; in Node, make them. Browsers skip
// it (the specifier is a variable, so bundlers leave the import alone).
const __nodeModuleSpecifier = ['node', 'module'].join(':'); // computed: bundlers must not resolve it
const require =
  typeof process == 'object' && process.versions && process.versions.node
    ? (await import(__nodeModuleSpecifier)).createRequire(import.meta.url)
    : undefined;
const __dirname = require ? require('node:path').dirname(require('node:url').fileURLToPath(import.meta.url)) : '';
