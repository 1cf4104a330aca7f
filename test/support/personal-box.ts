/**
 * Jest setup of the http project, run in each test file's module registry: the personal-data box
 * (libs/domain/src/kernel/personal-box.ts) keyed as the services are, so tests that call the domain
 * library directly seal and open personal fields as the services do.
 */
import { usePersonalDataKey } from '@dms/domain/kernel';

usePersonalDataKey((JSON.parse(process.env.TEST_SERVICE_ENV!) as Record<string, string>).SECRETS_KEY!);
