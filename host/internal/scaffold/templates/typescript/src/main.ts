// The plugin's executable: serves the toolbox to the ramabana-mcp host that
// started it, until the host ends it. Run by hand, it says so and exits 1.

import { serve } from "../ramabana/index.js";
import { newToolbox } from "./plugin.js";

serve(newToolbox());
