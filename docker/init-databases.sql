-- One database per service plus one for the registry, as `npm run stack:up` creates them locally.
CREATE DATABASE taskplatform_registry;
CREATE DATABASE taskplatform_tasks;
CREATE DATABASE taskplatform_quota;
CREATE DATABASE taskplatform_generation;
CREATE DATABASE taskplatform_notification;
