"""The reviewer's views: the review queue, the merge dialog, the audit log and the review actions."""
