import { z } from 'zod';

// A CLI process parses each schema a handful of times: zod's JIT (a `new Function` per schema)
// costs more at start-up than it saves, so it is off.
z.config({ jitless: true });

export { z };
