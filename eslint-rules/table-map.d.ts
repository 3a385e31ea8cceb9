/** Types of table-map.js. */
export declare const TABLE_OWNERS: { owners: Record<string, string[]>; anyTable: string[] };
