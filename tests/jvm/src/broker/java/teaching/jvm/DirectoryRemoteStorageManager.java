package teaching.jvm;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.Map;
import java.util.Optional;

import org.apache.kafka.server.log.remote.storage.LogSegmentData;
import org.apache.kafka.server.log.remote.storage.RemoteLogSegmentMetadata;
import org.apache.kafka.server.log.remote.storage.RemoteResourceNotFoundException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageException;
import org.apache.kafka.server.log.remote.storage.RemoteStorageManager;

/**
 * Remote storage that is a directory, for Apache Kafka as the differential suite's oracle of tiered
 * storage (tests/differential/test_tiered_storage.py): Kafka ships its LocalTieredStorage only in a test
 * jar. Configured with rsm.config.dir, it keeps one file per segment and index, named by the remote
 * segment's id: enough for Kafka's copier, readers and expiration to run as they do against any store.
 */
public class DirectoryRemoteStorageManager implements RemoteStorageManager {
    private Path root;

    @Override
    public void configure(Map<String, ?> configs) {
        root = Paths.get(String.valueOf(configs.get("dir")));
        try {
            Files.createDirectories(root);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    private Path file(RemoteLogSegmentMetadata metadata, String suffix) {
        return root.resolve(metadata.remoteLogSegmentId().id().toString() + suffix);
    }

    @Override
    public Optional<RemoteLogSegmentMetadata.CustomMetadata> copyLogSegmentData(RemoteLogSegmentMetadata metadata,
                                                                                LogSegmentData data)
            throws RemoteStorageException {
        try {
            Files.copy(data.logSegment(), file(metadata, ".log"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.offsetIndex(), file(metadata, ".index"), StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.timeIndex(), file(metadata, ".timeindex"), StandardCopyOption.REPLACE_EXISTING);
            if (data.transactionIndex().isPresent())
                Files.copy(data.transactionIndex().get(), file(metadata, ".txnindex"),
                           StandardCopyOption.REPLACE_EXISTING);
            Files.copy(data.producerSnapshotIndex(), file(metadata, ".snapshot"), StandardCopyOption.REPLACE_EXISTING);
            ByteBuffer epochs = data.leaderEpochIndex().duplicate();
            byte[] bytes = new byte[epochs.remaining()];
            epochs.get(bytes);
            Files.write(file(metadata, ".leader_epoch_checkpoint"), bytes);
            return Optional.empty();
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    private byte[] read(Path path) throws RemoteStorageException {
        try {
            return Files.readAllBytes(path);
        } catch (NoSuchFileException e) {
            throw new RemoteResourceNotFoundException(e);
        } catch (IOException e) {
            throw new RemoteStorageException(e);
        }
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition)
            throws RemoteStorageException {
        byte[] bytes = read(file(metadata, ".log"));
        return new ByteArrayInputStream(Arrays.copyOfRange(bytes, startPosition, bytes.length));
    }

    @Override
    public InputStream fetchLogSegment(RemoteLogSegmentMetadata metadata, int startPosition, int endPosition)
            throws RemoteStorageException {
        byte[] bytes = read(file(metadata, ".log"));
        return new ByteArrayInputStream(Arrays.copyOfRange(bytes, startPosition, Math.min(endPosition + 1, bytes.length)));
    }

    @Override
    public InputStream fetchIndex(RemoteLogSegmentMetadata metadata, IndexType indexType)
            throws RemoteStorageException {
        String suffix;
        switch (indexType) {
            case OFFSET: suffix = ".index"; break;
            case TIMESTAMP: suffix = ".timeindex"; break;
            case PRODUCER_SNAPSHOT: suffix = ".snapshot"; break;
            case TRANSACTION: suffix = ".txnindex"; break;
            default: suffix = ".leader_epoch_checkpoint";
        }
        return new ByteArrayInputStream(read(file(metadata, suffix)));
    }

    @Override
    public void deleteLogSegmentData(RemoteLogSegmentMetadata metadata) throws RemoteStorageException {
        for (String suffix : new String[] {".log", ".index", ".timeindex", ".txnindex", ".snapshot",
                                           ".leader_epoch_checkpoint"}) {
            try {
                Files.deleteIfExists(file(metadata, suffix));
            } catch (IOException e) {
                throw new RemoteStorageException(e);
            }
        }
    }

    @Override
    public void close() {
    }
}
