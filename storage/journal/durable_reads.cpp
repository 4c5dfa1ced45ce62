#include "storage/journal/durable_reads.hpp"

namespace volador::storage {
namespace {

thread_local bool durable_reads_active = false;

}  // namespace

DurableReads::DurableReads() : was_active_(durable_reads_active) { durable_reads_active = true; }

DurableReads::~DurableReads() { durable_reads_active = was_active_; }

bool DurableReads::active() { return durable_reads_active; }

}  // namespace volador::storage
