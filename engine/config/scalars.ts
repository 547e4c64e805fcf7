import { z } from 'zod';

/**
 * Integer fields the spec types as uint64. JavaScript numbers are exact only up to 2^53 - 1, so
 * that is the upper bound (no duration or interval comes near it).
 */
export const uint64Schema = z.int().min(0);

export const uint16Schema = z.int().min(0).max(65535);

/** The one broker type the engine speaks (`<BROKER_TYPE>` of the spec). */
export const brokerTypeSchema = z.literal('kafka');

/** The one document database type (`<DOCDB_TYPE>` of the spec). */
export const docdbTypeSchema = z.literal('mongodb');
