// `npm start`: the whole platform (registry, auth, social) in one process on embedded defaults, from the
// sources (tsx, `--conditions=development`): packages/host/src/main.ts. After `npm run build` the same runs as
// `node packages/host/dist/main.js`. Production runs one process per service: `node packages/<service>/dist/main.js`.
import '../packages/host/src/main.js';
