/**
 * Income and expenditure statements (`iae_`, CONTRACT section 18, docs/api.md "Income and
 * expenditure"): amounts and their monthly conversion, the statement's shape and validation,
 * the disposable income and the affordable instalment cap.
 */
export * from './amounts.js';
export * from './statement.js';
export * from './affordability.js';
