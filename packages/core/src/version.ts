/** The version every ariel CLI prints with --version. */
export const VERSION = "0.1.0";
