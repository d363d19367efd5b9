export declare const CONSOLE_PUBLIC_DIR: string;
export declare function consoleBuildIsFresh(): boolean;
export declare function ensureConsoleBuilt(): void;
