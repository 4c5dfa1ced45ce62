#pragma once
// The master's journal: every record a user would miss after a crash, kept
// in an ordered key-value store (key_value_store.hpp) under the layout of
// journal_keys.hpp, as Cap'n Proto values (journal_codec.hpp). Over RocksDB
// (Journal::open) it is durable: a call that returns success has written its
// records with one synced write, so they survive a kill -9 of the master and
// a power loss. In memory (Journal::in_memory, for tests) it keeps the same
// contract but dies with the process. commit() writes several records all or
// nothing. Thread-safe: actors on any thread may call any method concurrently.

#include <array>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <unordered_map>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "runtime/core/error.hpp"
#include "runtime/core/metrics.hpp"
#include "runtime/core/states.hpp"
#include "schemas/journal.records.hpp"
#include "storage/journal/checkpoint_feeds.hpp"
#include "storage/journal/group_commit.hpp"
#include "storage/journal/journal_stats.hpp"
#include "storage/journal/key_value_store.hpp"
#include "storage/journal/registered_checkpoints.hpp"

namespace volador::storage {

// The records (ExperimentRecord, TrialRecord, MetricRecord, LogLine,
// CheckpointRecord, ...) are generated from schemas/journal.capnp, which
// documents their fields.
using volador::CheckpointState;  // schemas/states.capnp
using volador::MetricKind;       // schemas/states.capnp
static_assert(std::is_same_v<decltype(MetricRecord::metrics), MetricMap>);

// An experiment's journaled search state: the latest snapshot of the whole
// state (put_searcher_state) and the events appended after it, in order.
struct SearchLogRecords {
  nlohmann::json snapshot;
  std::vector<SearchEventRecord> events;
};

// Records to write together, all or nothing (Journal::commit). Operations
// apply in the order they were added, e.g. a delete_metrics_after followed by
// append_metrics keeps the appended report. A plain value: build it anywhere.
class JournalBatch {
 public:
  struct SearcherStatePut {
    std::uint64_t experiment_id = 0;
    nlohmann::json state;
  };
  struct SearchEventAppend {
    std::uint64_t experiment_id = 0;
    SearchEventRecord event;
  };
  struct MetricsDeletion {
    std::uint64_t trial_id = 0;
    std::uint64_t after_batches = 0;
  };
  struct ExperimentDeletion {
    std::uint64_t experiment_id = 0;
  };
  // Log lines already numbered (trial_id and seq set): Journal::append_logs makes them.
  struct NumberedLogLines {
    std::vector<LogLine> lines;
  };
  // Log lines of one trial that the journal numbers as it queues the batch (append_logs).
  struct LogAppend {
    std::uint64_t trial_id = 0;
    std::vector<LogLine> lines;
  };
  struct CounterRaise {
    std::string counter;
    std::uint64_t value = 0;
  };
  using Operation = std::variant<ExperimentRecord, TrialRecord, SearcherStatePut, SearchEventAppend,
                                 CheckpointRecord, MetricRecord, MetricsDeletion, UserRecord, TokenRecord,
                                 ExperimentMetadataRecord, ModelRecord, ModelVersionRecord, ExperimentDeletion,
                                 NumberedLogLines, CounterRaise, LogAppend>;

  // The meaning of each operation is that of the Journal method of the same name.
  JournalBatch& put_experiment(ExperimentRecord record);
  JournalBatch& put_trial(TrialRecord record);
  JournalBatch& put_searcher_state(std::uint64_t experiment_id, nlohmann::json state);
  // Appends one event of the experiment's search after its snapshot
  // (Journal::search_log returns them in append order); no Journal method.
  JournalBatch& append_search_event(std::uint64_t experiment_id, SearchEventRecord event);
  JournalBatch& put_checkpoint(CheckpointRecord record);
  JournalBatch& append_metrics(MetricRecord record);
  JournalBatch& delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches);
  JournalBatch& put_user(UserRecord record);
  JournalBatch& put_token(TokenRecord record);
  JournalBatch& put_experiment_metadata(ExperimentMetadataRecord record);
  JournalBatch& put_model(ModelRecord record);
  JournalBatch& put_model_version(ModelVersionRecord record);
  JournalBatch& delete_experiment(std::uint64_t experiment_id);
  // Log lines whose trial_id and seq are set (Journal::append_logs numbers them).
  JournalBatch& put_numbered_logs(std::vector<LogLine> lines);
  // Appends `lines` to trial `trial_id`'s log (their trial_id and seq are
  // set then): Journal::commit and commit_async number them on from the
  // trial's last line as they queue the batch, in order with every other
  // append of the trial, and the batch carries them as put_numbered_logs
  // would. No lines: nothing is added.
  JournalBatch& append_logs(std::uint64_t trial_id, std::vector<LogLine> lines);
  // The named counter stands at `value` or above once written: makes a value
  // of Journal::reserve_id durable (a lower value than the stored one writes nothing).
  JournalBatch& raise_counter(std::string counter, std::uint64_t value);
  // Adds every operation of `other` after this batch's, in its order.
  JournalBatch& append(JournalBatch other);

  [[nodiscard]] const std::vector<Operation>& operations() const { return operations_; }
  [[nodiscard]] bool empty() const { return operations_.empty(); }
  // The stored values of operation `index`, encoded when it was added (by the
  // thread that builds the batch, not the journal's writer thread, which a
  // metric flood keeps busy): one for append_metrics, one per chunk of lines
  // (log_chunks.hpp) for put_numbered_logs, none for the others; the error
  // when a record cannot be encoded, which fails the batch at its commit.
  [[nodiscard]] const Result<std::vector<std::string>>& encoded_values(std::size_t index) const {
    return encoded_values_.at(index);
  }

 private:
  friend class Journal;
  // The trials whose lines the batch appends (append_logs) and the journal
  // has yet to number, each once, by id.
  [[nodiscard]] std::vector<std::uint64_t> trials_to_number() const;
  // Sets the trial_id and seq of the lines of one append_logs (their trial's
  // next seqs, in order); an error fails the batch at its commit.
  using NumberLines = std::function<Status(std::uint64_t trial_id, std::vector<LogLine>& lines)>;
  // Turns every append_logs, in place, into the put_numbered_logs of its lines numbered by `number`.
  void number_logs(const NumberLines& number);
  JournalBatch& add(Operation operation, Result<std::vector<std::string>> encoded_values = {});

  std::vector<Operation> operations_;
  std::vector<Result<std::vector<std::string>>> encoded_values_;  // by operation
};

class Journal {
 public:
  // Opens (creating if needed) the journal in `dir` (rocksdb_store.hpp). Error
  // io/corruption when RocksDB cannot open it (including when another process
  // holds its lock), and corruption when its log is damaged so that
  // acknowledged writes are lost, unless `accept_loss` (then it opens at the
  // last consistent point and damage_report() says what was lost).
  [[nodiscard]] static Result<std::unique_ptr<Journal>> open(const std::filesystem::path& dir,
                                                             bool accept_loss = false);
  // An empty journal in memory (memory_store.hpp): for tests of actors and
  // services that need no disk. Not durable: its records die with it.
  [[nodiscard]] static std::unique_ptr<Journal> in_memory();
  // The journal whose records `store` holds (empty: none yet).
  explicit Journal(std::unique_ptr<KeyValueStore> store);
  ~Journal();
  Journal(const Journal&) = delete;
  Journal& operator=(const Journal&) = delete;

  // Next value of a named durable counter ("experiment", "trial"): 1, 2, ...
  // Never repeats, even across restarts. invalid_argument for an empty name.
  [[nodiscard]] Result<std::uint64_t> next_id(std::string_view counter);
  // The counter's next value without a write of its own: the caller journals
  // raise_counter(counter, value) in the batch of the first record that uses
  // it. Never repeats within this journal's life; after a restart a value
  // whose raise was not written may come again, which nothing journaled
  // refers to. Use one of next_id and reserve_id per counter.
  [[nodiscard]] Result<std::uint64_t> reserve_id(std::string_view counter);

  // Writes every operation of `batch` at once (RocksDB: in one synced
  // write), or none of them, and returns once it is written. The lines it
  // appends (JournalBatch::append_logs) are numbered as it is queued; a
  // failed write leaves their seqs unused. Every commit
  // goes through the journal's writer thread (group_commit.hpp): batches
  // committed meanwhile from other threads share its synced write, in the
  // order they were committed. A record that cannot be encoded
  // (invalid_argument: e.g. JSON that is not UTF-8, an empty checkpoint uuid)
  // fails its batch alone, before anything of it is written. An empty batch
  // writes nothing.
  [[nodiscard]] Status commit(const JournalBatch& batch);
  // The same without waiting: queues `batch` and returns; `done` runs on the
  // writer thread with the write's outcome (it must not wait for a commit).
  // Batches are written in the order they were queued, with commit()'s.
  void commit_async(std::shared_ptr<const JournalBatch> batch, std::function<void(const Status&)> done);

  // One-operation commits.

  // Inserts or replaces the record with the same id.
  [[nodiscard]] Status put_experiment(const ExperimentRecord& record);
  [[nodiscard]] Status put_trial(const TrialRecord& record);
  // Appends; records of one trial come back ordered by (kind, batches, order of append).
  [[nodiscard]] Status append_metrics(const MetricRecord& record);
  // Deletes the trial's metric reports (both kinds) with batches > `batches`,
  // e.g. before a restart from the checkpoint at `batches` re-runs them.
  [[nodiscard]] Status delete_metrics_after(std::uint64_t trial_id, std::uint64_t batches);
  // Inserts or replaces the checkpoint with the same uuid.
  [[nodiscard]] Status put_checkpoint(const CheckpointRecord& record);
  // A snapshot of the experiment's whole search state (master/search_log.hpp):
  // replaces the one stored and deletes the search events stored since it,
  // which the new snapshot covers.
  [[nodiscard]] Status put_searcher_state(std::uint64_t experiment_id, const nlohmann::json& state);
  // Inserts or replaces the user with the same name (invalid_argument for an empty name).
  [[nodiscard]] Status put_user(const UserRecord& record);
  // Inserts or replaces the token with the same hash (invalid_argument for an empty hash).
  [[nodiscard]] Status put_token(const TokenRecord& record);
  // Inserts or replaces the experiment's metadata.
  [[nodiscard]] Status put_experiment_metadata(const ExperimentMetadataRecord& record);
  // Inserts or replaces the model with the same name, the version with the
  // same (model name, version) (invalid_argument for an empty or '/'-holding
  // name, a version 0 or an empty checkpoint uuid).
  [[nodiscard]] Status put_model(const ModelRecord& record);
  [[nodiscard]] Status put_model_version(const ModelVersionRecord& record);
  // Removes every record of the experiment: the experiment, its metadata,
  // model definition and search state, its trials with their metric reports
  // and log lines, and its checkpoints' records, but for the checkpoints that
  // a model version registers (their records stay, out of the experiment's
  // and trials' indexes). Nothing of another experiment is touched; deleting
  // an unknown experiment writes nothing and succeeds.
  [[nodiscard]] Status delete_experiment(std::uint64_t experiment_id);

  // Appends lines, assigning their seq; returns the seq of the last one (with
  // no lines: the trial's last seq, 0 if none; nothing is written).
  [[nodiscard]] Result<std::uint64_t> append_logs(std::uint64_t trial_id, std::vector<LogLine> lines);
  // The same without waiting: commit_async of JournalBatch::append_logs
  // (`done` is told the write's outcome, a failure to number the lines
  // included; not called without lines). A failed write loses these lines only.
  void append_logs_async(std::uint64_t trial_id, std::vector<LogLine> lines, std::function<void(const Status&)> done);
  // The packed model definition of an experiment (see storage/archives).
  [[nodiscard]] Status put_archive(std::uint64_t experiment_id, std::string_view bytes);

  // Reads. Each first waits for the batches queued before it (by commit or
  // commit_async, from any thread) to be written, so it sees them; within a
  // DurableReads scope (durable_reads.hpp) it reads what is written at once.
  // not_found for an unknown id or uuid.
  [[nodiscard]] Result<ExperimentRecord> experiment(std::uint64_t id) const;
  [[nodiscard]] Result<std::vector<ExperimentRecord>> experiments() const;  // by id
  [[nodiscard]] Result<TrialRecord> trial(std::uint64_t id) const;
  // By id.
  [[nodiscard]] Result<std::vector<TrialRecord>> trials(std::uint64_t experiment_id) const;
  [[nodiscard]] Result<std::vector<MetricRecord>> metrics(std::uint64_t trial_id) const;
  // Lines with seq > after_seq, at most `limit` of them, by seq.
  [[nodiscard]] Result<std::vector<LogLine>> logs(std::uint64_t trial_id, std::uint64_t after_seq,
                                                  std::size_t limit) const;
  // The seq of the trial's newest line (0: none), in one seek.
  [[nodiscard]] Result<std::uint64_t> last_log_seq(std::uint64_t trial_id) const;
  [[nodiscard]] Result<std::string> archive(std::uint64_t experiment_id) const;
  // The experiment's search state: its snapshot and the events appended since;
  // nullopt when no snapshot was stored yet.
  [[nodiscard]] Result<std::optional<SearchLogRecords>> search_log(std::uint64_t experiment_id) const;
  [[nodiscard]] Result<CheckpointRecord> checkpoint(std::string_view uuid) const;
  // Deleted ones included; ordered by (trial_id, batches, uuid). Empty when none.
  [[nodiscard]] Result<std::vector<CheckpointRecord>> checkpoints_of_experiment(std::uint64_t experiment_id) const;
  [[nodiscard]] Result<std::vector<CheckpointRecord>> checkpoints_of_trial(std::uint64_t trial_id) const;
  // not_found for an unknown name.
  [[nodiscard]] Result<UserRecord> user(std::string_view name) const;
  // Every user, by name. Empty when none.
  [[nodiscard]] Result<std::vector<UserRecord>> users() const;
  // not_found for an unknown hash.
  [[nodiscard]] Result<TokenRecord> token(std::string_view token_hash) const;
  // nullopt when no user changed the experiment's description or labels.
  [[nodiscard]] Result<std::optional<ExperimentMetadataRecord>> experiment_metadata(std::uint64_t experiment_id) const;
  // not_found for an unknown name.
  [[nodiscard]] Result<ModelRecord> model(std::string_view name) const;
  // Every model, by name. Empty when none.
  [[nodiscard]] Result<std::vector<ModelRecord>> models() const;
  // The versions of model `name` by version, or (empty name) of every model
  // by name and version. Empty when none.
  [[nodiscard]] Result<std::vector<ModelVersionRecord>> model_versions(std::string_view name) const;
  // The uuids of every checkpoint some model version registers: never
  // garbage-collected or deleted. Reads every version (a registry is small).
  [[nodiscard]] Result<std::set<std::string>> registered_checkpoints() const;
  // Whether some model version registers checkpoint `uuid`. The first call
  // reads every version; later ones read nothing (the journal keeps the
  // answer current as it writes versions).
  [[nodiscard]] Result<bool> is_registered(std::string_view uuid) const;

  // How many trials' append state (last log seq, highest metric batches)
  // the journal holds: those whose end is not written yet, and ended ones
  // appended to since (queued batches waited for, as a read does).
  [[nodiscard]] std::size_t trials_with_append_state() const;

  // What opening found damaged and which acknowledged writes it lost;
  // nullopt when it was whole.
  [[nodiscard]] const std::optional<std::string>& damage_report() const { return damage_report_; }

  // What this journal has written since it was opened, the batches queued
  // before the call included (it waits for them, as a read does).
  [[nodiscard]] JournalStats::Snapshot stats() const {
    committer_.wait_for_queued();
    return stats_.snapshot();
  }

  // Every checkpoint record of experiment `experiment_id` that a later
  // commit or commit_async writes, handed over once written (on the writer
  // thread, in the order written; `on_push` is called after each), for as
  // long as the caller holds the feed. Never one that is only queued: what
  // acts on a record (the checkpoint GC removing older checkpoints' files)
  // must not outrun the record's write, or a crash leaves the journal
  // without the checkpoint that made the others garbage.
  [[nodiscard]] std::shared_ptr<CheckpointFeed> follow_checkpoints(std::uint64_t experiment_id,
                                                                  std::function<void()> on_push = {}) {
    return checkpoint_feeds_.follow(experiment_id, std::move(on_push));
  }

  // Called with each batch once it is written, on the writer thread, in the
  // order the batches were written: it may read the journal, never commit.
  // Set it before anything commits (not thread-safe with commits).
  using CommitObserver = std::function<void(const JournalBatch&)>;
  void observe_commits(CommitObserver observer) { observer_ = std::move(observer); }

 private:
  // Serialises the log appends of one trial (numbered and queued in one
  // order) and caches its last log seq;
  // caches, per metric kind, the highest batches reported (writer thread only).
  // Dropped once the trial's end is written and nothing of it waits to be
  // (retire_ended_trials): all of it can be read again from the store.
  struct TrialAppends {
    std::mutex mutex;
    std::optional<std::uint64_t> last_log_seq;
    // At least the highest batches stored (too high costs a seek, never a record).
    std::array<std::optional<std::uint64_t>, 2> highest_batches;
    // Batches whose lines were numbered from last_log_seq and queued, not yet
    // done (raised under `mutex`, lowered on the writer thread).
    std::atomic<std::uint32_t> queued{0};
    bool retired = false;  // dropped from appends_ (set under `mutex`): look it up again
  };
  // A trial's append state, locked.
  struct LockedAppends {
    std::shared_ptr<TrialAppends> appends;
    std::unique_lock<std::mutex> lock;  // released before `appends`
  };
  // Turns a commit's operations into key-value writes (journal_commit.cpp).
  class BatchBuilder;

  // The writer thread's work: `batches` in one store write, all or none.
  // Only that one thread writes records, so what a write reads first (the
  // last seq of a metric step or of a search, a replaced checkpoint's index
  // entries) cannot change under it.
  [[nodiscard]] Status write(std::span<const JournalBatch* const> batches);
  std::shared_ptr<TrialAppends> appends_of(std::uint64_t trial_id);
  // The trial's append state, locked (never one retired meanwhile).
  LockedAppends locked_appends(std::uint64_t trial_id);
  // Drops the append state of the trials whose end is written, unless lines
  // numbered from it are queued or an append holds it (then tried again at
  // the next write). Writer thread only.
  void retire_ended_trials();
  // Numbers `lines` on from the trial's last log seq (`appends` locked by the caller).
  Status number_lines(std::uint64_t trial_id, TrialAppends& appends, std::vector<LogLine>& lines);
  // commit() of a batch with lines to number: queue_numbered, then waits for the write.
  Status commit_numbered(const JournalBatch& batch);
  // Numbers the lines `batch` appends and queues it for the writer, under
  // the append lock of each of their trials (taken by ascending id): each
  // trial's lines are queued in the order of their seqs.
  void queue_numbered(JournalBatch batch, GroupCommitter::Done done);
  // The trial's cached highest batches of `kind`, read from the store the
  // first time; only the writer thread reads and raises it.
  Result<std::uint64_t*> highest_metric_batches(std::uint64_t trial_id, MetricKind kind);
  // A written deletion of a trial's reports beyond some batches (a run
  // rewound to its checkpoint): the reports of the next run, numbered again
  // from there, skip the seek, which after the deletion crosses every deleted
  // report (the cost grew with the square of a rewound trial's reports).
  void lower_highest_batches(const JournalBatch::MetricsDeletion& deletion);

  // The value under `key`, nullopt when absent; a store error names the key.
  Result<std::optional<std::string>> get(const std::string& key) const;
  // The record under `key`; not_found "WHAT not found" when absent.
  template <class Record>
  Result<Record> record_at(const std::string& key, std::string_view what) const;
  // Every record under `prefix`, in key order.
  template <class Record>
  Result<std::vector<Record>> records_under(const std::string& prefix) const;
  // The trailing id of the last key starting with `prefix`, 0 if none.
  Result<std::uint64_t> last_id_under(const std::string& prefix) const;
  // The records that the index keys under `prefix` point to, in key order;
  // lookup(index_key) reads one. An index key whose record is missing is corruption.
  template <class Record, class Lookup>
  Result<std::vector<Record>> indexed(const std::string& prefix, Lookup lookup) const;
  Result<std::vector<CheckpointRecord>> indexed_checkpoints(const std::string& prefix) const;

  std::unique_ptr<KeyValueStore> store_;
  CommitObserver observer_;
  std::optional<std::string> damage_report_;
  JournalStats stats_;
  // The counter's last value handed out (counters_mutex_ held): read from the store the first time.
  Result<std::uint64_t*> last_counter_value(std::string_view counter);
  std::mutex counters_mutex_;
  std::map<std::string, std::uint64_t, std::less<>> counters_;  // last value handed out
  // The value each raised counter has in the store (writer thread only).
  std::map<std::string, std::uint64_t, std::less<>> stored_counters_;
  mutable std::mutex appends_mutex_;
  // The trials that have not ended (and ended ones appended to since).
  std::unordered_map<std::uint64_t, std::shared_ptr<TrialAppends>> appends_;
  // Trials whose end (a terminal TrialRecord) is written, their append state
  // not yet retired (writer thread only).
  std::set<std::uint64_t> ended_trials_;
  // The last search event seq of each experiment whose search this journal
  // has written or read for a write (writer thread only; journal_commit.cpp).
  std::unordered_map<std::uint64_t, std::uint64_t> last_search_event_seqs_;
  mutable RegisteredCheckpoints registered_;
  CheckpointFeeds checkpoint_feeds_;
  // Hands the checkpoint records of `batch`, just written, to checkpoint_feeds_ (writer thread).
  void publish_checkpoints(const JournalBatch& batch);
  // Last: its destructor writes what is queued while the rest still stands.
  GroupCommitter committer_;
};

}  // namespace volador::storage
