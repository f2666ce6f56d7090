// The audit policy (audit-policy.ts: its file, what it decides per request) and the audit events'
// form and rotating log (audit.ts). The filter that records a request's stages lives with the other filters.
export { type AuditPolicy, type AuditStage, defaultAuditPolicy, evaluateAuditPolicy, levelAtLeast, parseAuditPolicy, type RequestAuditConfig } from './audit-policy.js';
export { type AuditEvent, AuditFileLog, type AuditFileOptions, type AuditResponseStatus, type AuditSink, type AuditUser } from './audit.js';
